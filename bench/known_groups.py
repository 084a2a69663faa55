"""The known-groups battery as a user runs it: ``crseval shift known-groups --judge`` (100 simulated users per
reference CRS at 8, 12 and 20 turns on the bundled catalogue, and 6 users × 6 turns whose sessions the
embedded LLM judges), its summary per metric — checks, held, reversed, the smallest AUC and where — and its
wall time. Named peer: none outside crseval; the verdicts are the figures (the shift guide's table).

usage: python bench/known_groups.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kg"
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "crseval.cli.main",
                "shift",
                "known-groups",
                "--judge",
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        seconds = time.perf_counter() - t0
        summary = pd.read_parquet(out / "tables" / "known_groups_summary.parquet")
    record.table(
        "crseval shift known-groups --judge: per metric, the checks (follower vs each reference that does "
        "not follow, at each length), how many held or reversed, the smallest AUC and where",
        summary.to_dict("records"),
        note=f"{seconds:.0f} s on this machine",
    )
    record.table(
        "Time", [{"command": "crseval shift known-groups --judge", "wall s": round(seconds)}]
    )
    print(summary.to_string(index=False, float_format="%.3f"))
    print(f"{seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
