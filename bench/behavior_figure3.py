"""The Behavior Alignment paper's Figure 3 on INSPIRED's test dialogues, as the user runs it: an "ideal"
system that answers every recommender turn with the human's own response and a "worst-case" one that
answers with the human response of a seeded random turn of *another* test dialogue (fluent, on-topic for
movies, but not an answer to this context), mixed at exactly 0, 10, …, 100 % by ``crseval behavior meta``.
Prints each metric's value per share with its 95 % band and how monotonically it falls (Spearman ρ of value
against share: −1 is a metric that tracks quality perfectly); the figure is RUN/figures/quality_curve.png.

usage: python bench/behavior_figure3.py [INSPIRED_DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import _record as record
import numpy as np

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "inspired"


def write_systems(path: str, out: Path) -> tuple[Path, Path]:
    from crseval.behavior.evaluate import contexts
    from crseval.behavior.job import dialogues, split

    _, test = split(dialogues(path), "test")
    ctxs = contexts(test)
    rng = np.random.default_rng(0)
    ideal, worst = out / "ideal.jsonl", out / "worst.jsonl"
    with ideal.open("w") as fi, worst.open("w") as fw:
        for c in ctxs:
            other = ctxs[rng.integers(len(ctxs))]
            while other.dialogue == c.dialogue:
                other = ctxs[rng.integers(len(ctxs))]
            fi.write(
                json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": c.human}) + "\n"
            )
            fw.write(
                json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": other.human}) + "\n"
            )
    return ideal, worst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--out", type=Path, default=Path("runs/behavior-figure3"))
    args = ap.parse_args()
    if not Path(args.path).exists():
        print(f"INSPIRED not found at {args.path}; skipping")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    ideal, worst = write_systems(args.path, args.out)
    t0 = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).parent / "crseval"),
            "behavior",
            "meta",
            args.path,
            "--ideal",
            str(ideal),
            "--worst",
            str(worst),
            "--out",
            str(args.out / "run"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - t0
    import pandas as pd
    from scipy.stats import spearmanr

    curve = pd.read_csv(args.out / "run" / "tables" / "quality_curve.csv")
    rows = []
    for name, g in curve.groupby("metric", sort=False):
        cells = " ".join(f"{v:.3f}" for v in g["value"])
        rho = spearmanr(g["worst_share"], g["value"]).statistic
        band = (g["ci_hi"] - g["ci_lo"]).mean()
        print(f"{name:<22} ρ {rho:+.2f}  mean band width {band:.3f}  values 0→100 %: {cells}")
        rows.append(
            {
                "metric": name,
                "Spearman ρ": round(rho, 2),
                "mean band width": round(band, 3),
                "values at 0, 10, …, 100 % worst": cells,
            }
        )
    record.data(args.path)
    record.table(
        f"`crseval behavior meta` on INSPIRED's test dialogues ({seconds:.0f} s): each metric against the "
        "share of worst-case answers (ρ −1: tracks quality perfectly)",
        rows,
    )
    print(
        f"\ncrseval behavior meta: {seconds:.0f} s; figure: {args.out / 'run' / 'figures' / 'quality_curve.png'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(record.run(main))
