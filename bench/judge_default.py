"""The shipped default judge's validity, as it was fitted: ``crseval judge fit`` on CRSArena-Eval's 362
shared dialogues with the command the judge guide gives (the LLM's dialogue-overall question, the turn model
with the LLM's hidden states, no rules, FACE's predictions as the named peer), once with 5-fold CV grouped by
user and once leave-one-system-out (``--cv-groups system``). It records every design's out-of-fold Pearson r
with its 95 % CI under both, the range over held-out CRSs, and whether the judge it fits is the one the
package ships (``crseval/judge/default_judge.json``: its ridge weights, to 1e-6).

The LLM reads each dialogue once (362 calls, ~33 min on 2 cores); the second fit is served from the first's
cache. ``--cache FILE`` starts from an earlier run's ``llm_cache.sqlite`` (the same requests: the record says
how many calls it made).

usage: python bench/judge_default.py [--cache llm_cache.sqlite]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "judgments" / "crsarena_eval"
SHIPPED = ROOT / "crseval" / "judge" / "default_judge.json"
ASPECT = "dialogue-overall"
SHIPPED_DESIGN = "calibrated (LLM + turn model with LLM states)"
PEER = "published: face_run_train"


def fit(out: Path, groups: str) -> float:
    args = [
        "judge", "fit", str(DATA / "crs_arena_eval_train.json"),
        "--questions", ASPECT, "--turn-model", "--llm-states", "--no-rules", "--compact",
        "--reference", str(DATA / "face_run_train.json"),
        "--name", "crseval-default", "--cv-groups", groups, "--out", str(out),
    ]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "crseval.cli.main", *args], check=True, capture_output=True
    )
    return time.perf_counter() - t0


def calls(out: Path) -> int:
    """The LLM calls a fit made (its cache misses)."""
    return int(pd.read_parquet(out / "tables" / "llm_usage.parquet")["cache_misses"].sum())


def same_weights(fitted: Path) -> float:
    """The largest difference between the fitted and the shipped judge's dialogue-level ridge weights."""
    a, b = (json.loads(p.read_text())["models"] for p in (fitted, SHIPPED))
    return max(float(np.max(np.abs(np.subtract(a[k]["coef"], b[k]["coef"])))) for k in b)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, help="an earlier fit's llm_cache.sqlite to start from")
    a = ap.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the shared data)")
        return 0
    record.data(DATA / "crs_arena_eval_train.json", DATA / "face_run_train.json")
    rows, times = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        previous = a.cache
        for groups in ("user", "system"):
            out = Path(tmp) / groups
            out.mkdir()
            if previous:
                shutil.copy(previous, out / "llm_cache.sqlite")
            times[groups] = fit(out, groups), calls(out)
            previous = out / "llm_cache.sqlite"
            cv = pd.read_parquet(out / "tables" / "judge_fit_cv.parquet")
            rows += [
                {"grouping": groups, "aspect": r.aspect, "design": r.judge, "n": r.n,
                 "pearson": r.pearson, "pearson_lo": r.pearson_lo, "pearson_hi": r.pearson_hi}
                for r in cv.itertuples()
            ]  # fmt: skip
            if groups == "user":
                drift = same_weights(out / "judge.json")
        per = pd.read_parquet(out / "tables" / "judge_fit_held_out.parquet")
    per = per[(per["aspect"] == ASPECT) & per["judge"].isin([SHIPPED_DESIGN, PEER])]
    held = per.pivot(
        index="system", columns="judge", values=["n", "pearson", "pearson_lo", "pearson_hi"]
    )
    held.columns = [
        ("judge" if j == SHIPPED_DESIGN else "face")
        + ("" if c == "pearson" else "_" + c.split("_")[-1])
        for c, j in held.columns
    ]
    held = held.reset_index().astype({"judge_n": int, "face_n": int})
    held = held.sort_values("judge", ascending=False)
    timing = "; ".join(f"{g}: {s:.0f} s, {n} LLM calls" for g, (s, n) in times.items())
    record.table(
        "The default judge on CRSArena-Eval's 362 shared dialogues: out-of-fold Pearson r, 95 % CI, CV grouped "
        "by user (5 folds) and by system (leave one out); named peer: FACE's published predictions",
        rows,
        note=timing,
    )
    record.table(
        f"Leave-one-system-out, {ASPECT}: Pearson r per held-out CRS", held.to_dict("records")
    )
    record.table(
        "Is the fitted judge the shipped one?",
        [{"max weight difference": drift, "same": drift < 1e-6}],
    )
    table = pd.DataFrame(rows).pivot(
        index=["aspect", "design"], columns="grouping", values="pearson"
    )
    print(table.to_string(float_format="%.3f"))
    print(held.to_string(index=False, float_format="%.2f"))
    print(f"max |fitted − shipped weight| = {drift:.2e}; {timing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
