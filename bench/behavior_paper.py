"""The paper's design as the user runs it — `crseval behavior train INSPIRED --design paper --ood OOD` at a
fraction of the paper's counts (default 10,000 pairs, 1,000 hard; `--paper-cv none`: final models and OOD
only) — beside the named peer, the default design (`crseval behavior train INSPIRED --ood OOD`), measured in
the same run: wall time and the OOD κ rows of both (95 % intervals over resampled sentences). Then the
cross-encoder's training throughput on 512 pairs in process, and what the full protocol would take at that
rate on this machine (2 × 100,000 pairs for the final models, 2 designs × 2 protocols × 5 folds × 80,000
pairs for the cross-validation).

usage: python bench/behavior_paper.py [INSPIRED_DIR] [--pairs N] [--ood CSV] [--skip-peer]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FULL_PAIRS = 2 * 100_000 + 2 * 2 * 5 * 80_000


def command(args: list[str], out: Path) -> tuple[float, list[dict]]:
    t0 = time.perf_counter()
    res = subprocess.run(
        [
            str(Path(sys.executable).parent / "crseval"),
            "behavior",
            "train",
            *args,
            "--out",
            str(out),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - t0, json.loads(res.stdout)["result"]


def ood_rows(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["design"].startswith("OOD")]


def throughput(data: str) -> float:
    """Cross-encoder training pairs per second on 512 INSPIRED pairs (in process, model load excluded)."""
    from crseval.behavior.classifier import labelled_sentences
    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier
    from crseval.behavior.pairs import make_pairs
    from crseval.data import load_dataset

    pairs = make_pairs(labelled_sentences(load_dataset("inspired", data).dialogues), 512, seed=0)
    model = CrossEncoderPairClassifier()
    t0 = time.perf_counter()
    model.fit(pairs)
    return len(pairs) / (time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(SHARED / "inspired"))
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--ood", default=str(SHARED / "behavior_ood" / "redial_strategies_dev.csv"))
    ap.add_argument("--skip-peer", action="store_true", help="Time only the paper design.")
    a = ap.parse_args()
    if not Path(a.data).is_dir() or not Path(a.ood).is_file():
        sys.exit(f"skipped: {a.data} or {a.ood} is missing (../shared/data beside the project)")
    with tempfile.TemporaryDirectory() as tmp:
        paper_args = [
            a.data,
            "--design",
            "paper",
            "--pairs",
            str(a.pairs),
            "--hard",
            str(a.pairs // 10),
            "--paper-cv",
            "none",
            "--ood",
            a.ood,
        ]
        t_paper, paper = command(paper_args, Path(tmp) / "paper")
        print(
            f"paper design, {a.pairs} pairs ({a.pairs // 10} hard), final models + OOD: {t_paper / 60:.1f} min"
        )
        rows = [
            {"run": f"paper design ({a.pairs} pairs)", "minutes": round(t_paper / 60, 1), **r}
            for r in ood_rows(paper)
        ]
        for r in ood_rows(paper):
            print(f"  {r['design']}: κ {r['kappa']:.3f} [{r['kappa_lo']:.3f}, {r['kappa_hi']:.3f}]")
        if not a.skip_peer:
            t_peer, peer = command([a.data, "--ood", a.ood], Path(tmp) / "peer")
            print(
                f"peer, the default design: {t_peer / 60:.1f} min (paper design / default: {t_paper / t_peer:.2f}×)"
            )
            rows += [
                {"run": "peer: the default design", "minutes": round(t_peer / 60, 1), **r}
                for r in ood_rows(peer)
            ]
            for r in ood_rows(peer):
                print(
                    f"  {r['design']}: κ {r['kappa']:.3f} [{r['kappa_lo']:.3f}, {r['kappa_hi']:.3f}]"
                )
    rate = throughput(a.data)
    print(
        f"cross-encoder training: {rate:.1f} pairs/s; the paper's full protocol ({FULL_PAIRS:,} training "
        f"pairs) ≈ {FULL_PAIRS / rate / 3600:.1f} h here, final models and OOD only ≈ "
        f"{200_000 / rate / 3600:.1f} h"
    )
    record.data(a.data, a.ood)
    record.table(
        "`crseval behavior train INSPIRED --design paper --ood OOD` beside the named peer, the default "
        "design, in the same run: wall time and OOD κ (95 % intervals)",
        rows,
        note=f"cross-encoder training {rate:.1f} pairs/s: the paper's full protocol ({FULL_PAIRS:,} "
        f"pairs) ≈ {FULL_PAIRS / rate / 3600:.1f} h here, final models and OOD only ≈ "
        f"{200_000 / rate / 3600:.1f} h",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
