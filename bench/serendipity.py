"""Serendipity evaluators: all proxy metrics on the full Serendipity-2018 file (target ≤ 10 s on 2 cores;
Taobao supports no history-based proxy — see `crseval serendipity meta-eval --dataset taobao-serendipity`),
LLM evaluator throughput in items/s with the named backend (default: scripted; pass --backend llamacpp
for the embedded model), and a cached re-run that must issue no LLM request.

usage: python bench/serendipity.py [SERENDIPITY2018_DIR] [--backend scripted|llamacpp] [--items N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _record as record

from crseval.data import load_dataset
from crseval.llm import LLMConfig, make_client
from crseval.runs import RunStore
from crseval.serendipity.evaluator import LLMEvaluator, llm_scores
from crseval.serendipity.proxies import PROXIES, features, to_likert

DEFAULT = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "serendipity" / "serendipity2018"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--backend", default="scripted")
    ap.add_argument("--items", type=int, default=20)
    a = ap.parse_args()
    if not Path(a.path).exists():
        print(f"Serendipity-2018 not found at {a.path}; skipping")
        return 0
    study = load_dataset("serendipity2018", a.path)
    t0 = time.perf_counter()
    f = features(study).table
    for fn in PROXIES.values():
        to_likert(fn(f))
    t_proxy = time.perf_counter() - t0
    rows = list(range(a.items))  # the first answers of the whole study: what a --sample run rates
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(tmp)
        client = make_client(LLMConfig(backend=a.backend), store.cache_path)
        t0 = time.perf_counter()
        llm_scores(study, LLMEvaluator(client, store, runs=1), rows=rows)
        t_llm = time.perf_counter() - t0
        first = client.stats.requests
        store2 = RunStore(Path(tmp) / "rerun")
        t0 = time.perf_counter()
        llm_scores(
            study, LLMEvaluator(client, store2, runs=1), rows=rows
        )  # new run directory, same cache: every answer is a cache hit
        t_cached = time.perf_counter() - t0
        cached_requests = client.stats.requests - first
        client.close()
    print(
        f"Serendipity-2018: {len(study.answers)} answers; all 5 proxies (features + scores): {t_proxy:.2f} s "
        f"(target ≤ 10 s)"
    )
    print(
        f"LLM evaluator ({a.backend}): {a.items / t_llm:.2f} items/s ({t_llm:.1f} s for {a.items} items); "
        f"cached re-run {t_cached:.2f} s with {cached_requests} LLM requests (target 0)"
    )
    record.data(a.path)
    record.table(
        f"Serendipity-2018, {len(study.answers)} answers",
        [
            {
                "": f"all {len(PROXIES)} proxy metrics (features + scores)",
                "seconds": round(t_proxy, 2),
                "items/s": "",
                "LLM requests": 0,
            },
            {
                "": f"LLM evaluator, backend {a.backend}, {a.items} items",
                "seconds": round(t_llm, 1),
                "items/s": round(a.items / t_llm, 2),
                "LLM requests": first,
            },
            {
                "": "the same items again from the cache",
                "seconds": round(t_cached, 2),
                "items/s": round(a.items / t_cached, 1),
                "LLM requests": cached_requests,
            },
        ],
    )
    ok = t_proxy <= 10 and cached_requests == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(record.run(main))
