"""How much of a preference-shift run is *not* LLM time? With the embedded model (llama.cpp), a run of
2 models (one model under two prompts) × 2 sessions × 6 turns with the 3-aspect judge; the ratio
wall time / the model's busy time must be ≤ 1.05. The named peer is the ideal: 1.00 (every second
spent in the model). Everything else — KB load, TF-IDF fit, simulator, retrieval, scoring, records,
statistics, figures and the report — is the overhead.

The model's time is its busy time: each call records when the model started and stopped working on it
(after any queueing for the one embedded model, which the CRS's, the simulated user's and the judge's
calls share), and the run's ``llm_usage`` gives per role the union of those intervals (``busy_s``). With
one model worker no two calls work at once, so the roles' busy seconds add up to the model's. (Summing
the calls' wall times, ``llm_seconds``, counts a call's queueing as model time: that sum overcounted,
read 0.74–0.80, and is printed beside.)

usage: python bench/shift_overhead.py [--sessions 2] [--turns 6] [--kb PATH] [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

from crseval.adaptation.config import ShiftConfig
from crseval import evaluate

SERIAL = {"concurrency": 1}
DEFAULT_KB = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "opendialkg"
    / "opendialkg_movie_data.json"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--kb", default=str(DEFAULT_KB) if DEFAULT_KB.exists() else None)
    ap.add_argument(
        "--out",
        default=None,
        help="run directory (default: a fresh temporary one, so no cache hits)",
    )
    a = ap.parse_args()
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp()) / "run"
    cfg = ShiftConfig.model_validate(
        {
            "sessions": a.sessions,
            "turns": a.turns,
            "kb": a.kb,
            "workers": 1,  # sessions, and below each client's calls, one at a time
            "models": [
                {"name": "qwen-default", "prompt": "default", "llm": SERIAL},
                {"name": "qwen-proactive", "prompt": "proactive", "llm": SERIAL},
            ],
            "judge": {"judges": [{"name": "judge", "llm": SERIAL}]},
        }
    )
    t0 = time.perf_counter()
    evaluate("shift.run", cfg, out=out)
    wall = time.perf_counter() - t0
    usage = pd.read_csv(out / "tables" / "llm_usage.csv")
    llm = float(usage["busy_s"].sum())
    summed = float(usage["llm_seconds"].sum())
    print(
        f"{len(cfg.models)} models × {a.sessions} sessions × {a.turns} turns + judge: wall {wall:.1f} s, "
        f"model busy {llm:.1f} s ({int(usage['requests'].sum())} requests, "
        f"{int(usage['cache_hits'].sum())} cache hits; calls' wall times summed {summed:.1f} s, "
        f"queued {usage['wait_s'].sum():.1f} s)"
    )
    print(
        f"ratio wall / model busy time: {wall / llm:.3f} (ideal peer 1.000; target ≤ 1.05: "
        f"{'met' if wall / llm <= 1.05 else 'NOT met'})"
    )
    record.data(*[a.kb] if a.kb else [])
    record.table(
        f"{len(cfg.models)} models × {a.sessions} sessions × {a.turns} turns + the 3-aspect judge, "
        "embedded model; named peer: the ideal, every second spent in the model (ratio 1.000)",
        [
            {
                "wall s": round(wall, 1),
                "model busy s": round(llm, 1),
                "calls' wall times summed s": round(summed, 1),
                "requests": int(usage["requests"].sum()),
                "ratio wall / model busy": round(wall / llm, 3),
                "target": "≤ 1.05",
            },
        ],
    )
    if not a.out:
        shutil.rmtree(out.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
