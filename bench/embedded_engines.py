"""The embedded model's two engines on the same prompts: the prebuilt ``xllamacpp`` wheel (the default: no
compiler) against the named peer, the compiled ``llama-cpp-python`` (today's binding before the switch),
measured in the same run on the same GGUF.

1. Ratings: every rubric of the judge on every bundled sample dialogue (probability-weighted, the
   judge's path): the largest and mean absolute difference of the digits' probabilities, of the expected
   rating, and how often the most likely digit agrees; seconds for all of them; whether both engines saw
   the same prompt (token counts). The noise floor: the peer against itself with the prompts sent in the
   reverse order (llama.cpp reuses a different cached prefix, so the prompts are evaluated in other
   batches: the same model, the same prompt, other floating-point sums).
2. Generation: greedy answers (temperature 0, 64 tokens) to a few CRS-like prompts: tokens per second
   and how many answers are the same text.
3. Load time and the worker process's peak memory (VmHWM).

Each engine runs alone (one worker, every core); an engine that is not installed is skipped with a line.

usage: python bench/embedded_engines.py [--generations 6]
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import _record as record
import numpy as np

from crseval.data import load_dataset
from crseval.judge.rubric import RUBRICS, judge_request
from crseval.llm import ChatRequest
from crseval.llm.llamacpp import ENGINE_MODULES, LlamaCppBackend

PEER = "llama-cpp-python"
PROMPTS = [
    "I loved Alien and The Thing. Recommend one film and say why in one sentence.",
    "Suggest two comedies from the 90s for a family night.",
    "I don't like horror. What should I watch tonight?",
    "Recommend a film like Superbad, but newer.",
    "What is a good heist movie? Answer briefly.",
    "I want something with Tom Hanks, but not a war movie.",
    "Name three animated films for adults.",
    "My favourite director is Christopher Nolan. What else would I like?",
]


def peak_mb(backend: LlamaCppBackend) -> float:
    peaks = []
    for proc in backend._pool.processes:
        with open(f"/proc/{proc.pid}/status") as fh:
            line = next(x for x in fh if x.startswith("VmHWM"))
        peaks.append(int(line.split()[1]) / 1024)
    return max(peaks, default=float("nan"))


def measure(
    engine: str, ratings: list[ChatRequest], prompts: list[ChatRequest], reverse: bool = False
) -> dict:
    t0 = time.perf_counter()
    backend = LlamaCppBackend(engine=engine)
    try:
        backend.complete(ChatRequest.chat("Say yes.", max_tokens=2), 600)
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        order = list(reversed(ratings)) if reverse else ratings
        rated = [backend.complete(r, 600) for r in order]
        rated = list(reversed(rated)) if reverse else rated
        rate_s = time.perf_counter() - t0
        answers = [backend.complete(r, 600) for r in prompts]
        tokens = sum(a.completion_tokens for a in answers)
        return {
            "load_s": load,
            "rate_s": rate_s,
            "probs": [r.choice_probs for r in rated],
            "prompt_tokens": [r.prompt_tokens for r in rated],
            "texts": [a.text for a in answers],
            "tok_s": tokens / sum(a.latency_s for a in answers),
            "peak_mb": peak_mb(backend),
        }
    finally:
        backend.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--generations", type=int, default=6)
    a = ap.parse_args()
    sample = load_dataset("sample").dialogues
    ratings = [
        replace_choices(judge_request(d, rubric)[0], rubric.scale)
        for d in sample
        for rubric in RUBRICS.values()
    ]
    prompts = [ChatRequest.chat(p, max_tokens=64) for p in PROMPTS[: a.generations]]
    engines = [e for e, m in ENGINE_MODULES.items() if importlib.util.find_spec(m) is not None]
    if PEER not in engines or len(engines) < 2:
        print(f"needs both engines installed ({', '.join(ENGINE_MODULES)}); found {engines}")
        return 0
    print(
        f"{len(ratings)} rating prompts ({len(sample)} dialogues × {len(RUBRICS)} rubrics), "
        f"{len(prompts)} greedy generations; peer: {PEER}"
    )
    got = {e: measure(e, ratings, prompts) for e in engines}
    got[f"{PEER}, prompts reversed"] = measure(PEER, ratings, prompts, reverse=True)
    peer = got[PEER]
    rows = []
    for engine, m in got.items():
        dp, drating, top = [], [], []
        for ours, theirs in zip(m["probs"], peer["probs"]):
            digits = sorted(theirs)
            a_, b_ = (np.array([p[d] for d in digits]) for p in (ours, theirs))
            values = np.array([int(d) for d in digits])
            dp.extend(np.abs(a_ - b_))
            drating.append(abs(a_ @ values / a_.sum() - b_ @ values / b_.sum()))
            top.append(a_.argmax() == b_.argmax())
        rows.append(
            {
                "engine": engine + (" (peer)" if engine == PEER else ""),
                "load s": round(m["load_s"], 1),
                "ratings s": round(m["rate_s"], 1),
                "ratio": round(m["rate_s"] / peer["rate_s"], 2),
                "generation tok/s": round(m["tok_s"], 1),
                "tok/s ratio": round(m["tok_s"] / peer["tok_s"], 2),
                "peak MB": round(m["peak_mb"]),
                "max |Δp|": float(np.max(dp)),
                "mean |Δp|": float(np.mean(dp)),
                "max |Δ rating|": float(np.max(drating)),
                "same top digit": f"{np.mean(top):.0%}",
                "same prompt tokens": f"{np.mean(np.equal(m['prompt_tokens'], peer['prompt_tokens'])):.0%}",
                "same greedy text": f"{sum(x == y for x, y in zip(m['texts'], peer['texts']))}"
                f"/{len(prompts)}",
            }
        )
    for r in rows:
        print(r)
    record.table(
        "embedded engines on the same prompts (ratings: judge rubrics × sample dialogues)", rows
    )
    return 0


def replace_choices(request: ChatRequest, scale: tuple[int, int]) -> ChatRequest:
    """The request the judge sends for a probability-weighted rating (what ``LLMClient.rate`` does)."""
    from dataclasses import replace

    lo, hi = scale
    return replace(request, choices=tuple(str(d) for d in range(lo, hi + 1)), max_tokens=1)


if __name__ == "__main__":
    raise SystemExit(record.run(main))
