"""Version 2 against version 1, as the guide for your own CRS shows it: ``crseval evaluate-crs
examples/my_crs_v2.py --against v1=examples/my_crs.py,template --no-llm`` (the bundled catalogue, the
default simulated users), its card rows — each score with its CI, the paired differences from v1 and from
the template with their stars, the known groups — and its wall time. Named peer: v1, in the same card.

usage: python bench/card_versions.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    examples = ROOT / "examples"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "card"
        args = ["evaluate-crs", str(examples / "my_crs_v2.py"), "--against",
                f"v1={examples / 'my_crs.py'},template", "--no-llm", "--out", str(out)]  # fmt: skip
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "crseval.cli.main", *args], check=True, capture_output=True
        )
        seconds = time.perf_counter() - t0
        card = pd.read_parquet(out / "tables" / "card.parquet")
    columns = ["metric", "label", "my_crs_v2", "vs v1", "vs template", "known groups"]
    record.table(
        "evaluate-crs examples/my_crs_v2.py --against v1=examples/my_crs.py,template --no-llm",
        card[columns].to_dict("records"),
    )
    record.table("Time", [{"command": "evaluate-crs … --no-llm", "wall s": round(seconds)}])
    print(card[columns].to_string(index=False))
    print(f"{seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
