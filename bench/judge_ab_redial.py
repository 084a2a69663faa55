"""Which judge designs agree with people on human–human dialogues: ``crseval judge fit AB-ReDial --aspects
dialogue-overall`` on its 195 dialogues (the embedded model's dialogue-overall question, the rule-read
transcript features, the ridge calibrated on both under 5-fold dialogue-grouped nested CV), each design's
out-of-fold Pearson r with its 95 % CI, Spearman and the partial r with length held constant; named peer:
the length baseline, in the same table. 195 LLM calls (~25 min on 2 cores).

usage: python bench/judge_ab_redial.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "judgments" / "ab_redial"
COLUMNS = ["judge", "n", "pearson", "pearson_lo", "pearson_hi", "spearman", "partial_length"]


def main() -> int:
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the shared data)")
        return 0
    record.data(DATA / "annotated_dialogues.csv")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "fit"
        t0 = time.perf_counter()
        args = ["judge", "fit", str(DATA), "--aspects", "dialogue-overall", "--out", str(out)]
        subprocess.run(
            [sys.executable, "-m", "crseval.cli.main", *args], check=True, capture_output=True
        )
        seconds = time.perf_counter() - t0
        cv = pd.read_parquet(out / "tables" / "judge_fit_cv.parquet")
    rows = cv.loc[cv["aspect"] == "dialogue-overall", COLUMNS]
    record.table(
        "AB-ReDial, 195 dialogues, dialogue-overall, 5-fold dialogue-grouped nested CV: out-of-fold "
        "agreement with people, 95 % CI; named peer: the length baseline",
        rows.to_dict("records"),
        note=f"{seconds:.0f} s on this machine",
    )
    print(rows.to_string(index=False, float_format="%.3f"))
    print(f"{seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
