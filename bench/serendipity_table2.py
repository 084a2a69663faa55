"""SerenEva's Table 2 with the embedded model: ``crseval serendipity reproduce --serendipity2018 DIR --sample
N --parts table2`` as a user runs it (a fresh run directory, the default engine, temperature 0: one
probability-weighted rating per prompt), its rows — the proxies, the paper's zero-shot and few-shot prompts,
the prompt baselines and crseval's own evaluator, each with its Pearson CI on the same N answers — and its
time. Named peer: the published figures of the paper's LLM rows (``../shared/specs/sereneva_table2.md``),
measured with 7B–72B models and GPT-4, not a 1.5B one.

usage: python bench/serendipity_table2.py [--sample N] [--protocol crseval|sereneva]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "serendipity" / "serendipity2018"
PAPER = {
    "sereneva": "zero-shot Qwen2.5-7B 4.18 / 1.349 / 1.576",
    "sereneva-fewshot": "few-shot Qwen2.5-7B 6.49 / 1.007 / 1.282",
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--protocol", default="sereneva")
    a = ap.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the shared data)")
        return 0
    record.data(DATA)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        args = [
            "serendipity",
            "reproduce",
            "--serendipity2018",
            str(DATA),
            "--sample",
            str(a.sample),
        ]
        args += [
            "--parts",
            "table2",
            "--protocol",
            a.protocol,
            "--out",
            str(out),
        ]
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "crseval.cli.main", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds = time.perf_counter() - t0
        table = pd.read_csv(out / "tables" / "serendipity_table2.csv")
        calls = int(pd.read_csv(out / "tables" / "llm_usage.csv")["requests"].sum())
    rows = [
        {
            "evaluator": r["evaluator"],
            "n": int(r["n"]),
            "pearson_%": round(float(r["pearson_%"]), 2),
            "pearson_%_lo": round(float(r["pearson_%_lo"]), 2),
            "pearson_%_hi": round(float(r["pearson_%_hi"]), 2),
            "mae": round(float(r["mae"]), 3),
            "rmse": round(float(r["rmse"]), 3),
            "paper (a 7B model)": PAPER.get(r["evaluator"], ""),
        }
        for _, r in table.iterrows()
    ]
    print(pd.DataFrame(rows).to_string(index=False))
    print(
        f"{seconds:.0f} s, {calls} LLM calls ({seconds / max(calls, 1):.1f} s per call) on this machine"
    )
    record.table(
        f"`crseval serendipity reproduce --serendipity2018 … --sample {a.sample} --parts table2 "
        f"--protocol {a.protocol}`, the embedded model (Serendipity-2018, {a.sample} answers)",
        rows,
    )
    record.table(
        "its time",
        [
            {
                "answers": a.sample,
                "LLM calls": calls,
                "seconds": round(seconds),
                "s per call": round(seconds / max(calls, 1), 2),
            }
        ],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
