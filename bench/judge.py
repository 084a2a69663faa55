"""Judging speed on 2 cores with the embedded model (Qwen2.5-Coder-1.5B, llama.cpp).

1. What a user runs: ``crseval judge meta-eval AB-ReDial --aspects dialogue-overall --limit N`` with the
   shipped calibrated judge and a cold cache (a fresh run directory): wall time, dialogues per minute,
   ratings per second (target: 60 dialogues of one aspect in ≤ 10 minutes).
2. Prompt-cache reuse in decomposed judging: the per-turn questions of a few dialogues asked in
   transcript order (each prompt shares the previous one's prefix up to the judged turn, so llama.cpp
   re-reads only the new lines) against the named peer, the same requests in shuffled order (no prefix
   shared between consecutive prompts: what a judge that batches across dialogues pays).

usage: python bench/judge.py [--dialogues 60] [--decomposed 4] [--data ../shared/data/judgments/ab_redial]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record

ROOT = Path(__file__).resolve().parents[1]


def default_command(data: Path, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "crseval.cli.main",
                "judge",
                "meta-eval",
                str(data),
                "--aspects",
                "dialogue-overall",
                "--limit",
                str(n),
                "--out",
                f"{tmp}/run",
                "--format",
                "csv",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - t0
        ratings = sum(1 for _ in open(f"{tmp}/run/records/judgments.jsonl"))
    print(
        f"default `judge meta-eval --limit {n}` (cold cache): {wall:.0f} s, {60 * n / wall:.1f} dialogues/min, "
        f"{ratings / wall:.2f} ratings/s ({ratings} ratings); target ≤ 600 s for 60 → "
        f"{'met' if wall * 60 / n <= 600 else 'NOT met'} ({wall * 60 / n:.0f} s per 60)"
    )
    record.table(
        f"What a user runs: `crseval judge meta-eval AB-ReDial --aspects dialogue-overall --limit {n}`, "
        "the shipped calibrated judge, cold cache",
        [
            {
                "dialogues": n,
                "ratings": ratings,
                "wall s": round(wall),
                "dialogues/min": round(60 * n / wall, 1),
                "ratings/s": round(ratings / wall, 2),
                "target": "≤ 600 s per 60 dialogues",
            },
        ],
    )


def decomposed(data: Path, n: int) -> None:
    from crseval.data.judged import load_judged
    from crseval.judge.decomposed import turn_items
    from crseval.judge.rubric import judge_request, rubric_for
    from crseval.llm import LLMConfig, make_client

    rubric = rubric_for("turn-satisfied")
    items = load_judged(data).items[:n]
    reqs = [
        judge_request(d, rubric, target=t)[0]
        for it in items
        for _, d, t in turn_items(it.id, it.dialogue)
    ]
    shuffled = reqs[:]
    random.Random(0).shuffle(shuffled)
    client = make_client(LLMConfig())  # no cache: every request reaches the model
    try:
        client.rate(reqs[0], rubric.scale)  # load the model outside the timings
        times = {}
        for name, batch in (("transcript order", reqs), ("shuffled (peer)", shuffled)):
            client.rate(
                judge_request(items[-1].dialogue, rubric_for("overall"))[0], (1, 5)
            )  # a foreign prefix
            t0 = time.perf_counter()
            for r in batch:
                client.rate(r, rubric.scale)
            times[name] = time.perf_counter() - t0
    finally:
        client.close()
    for name, t in times.items():
        print(
            f"decomposed, {len(reqs)} turn questions of {n} dialogues, {name}: {t:.0f} s "
            f"({t / len(reqs):.2f} s per question)"
        )
    record.table(
        f"Decomposed judging: {len(reqs)} per-turn questions of {n} dialogues; named peer: the same "
        "requests shuffled (no prefix shared between consecutive prompts)",
        [
            {"order": name, "seconds": round(t), "s per question": round(t / len(reqs), 2)}
            for name, t in times.items()
        ],
        note=f"prompt-cache reuse: {times['shuffled (peer)'] / times['transcript order']:.2f}× faster "
        "than the peer",
    )
    print(
        f"prompt-cache reuse: {times['shuffled (peer)'] / times['transcript order']:.2f}× faster than the peer"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dialogues", type=int, default=60)
    ap.add_argument("--decomposed", type=int, default=4)
    ap.add_argument(
        "--data", type=Path, default=ROOT.parent / "shared" / "data" / "judgments" / "ab_redial"
    )
    args = ap.parse_args()
    record.data(args.data)
    if not args.data.exists():
        sys.exit(f"skipped: {args.data} not found (the shared datasets are not bundled)")
    default_command(args.data, args.dialogues)
    if args.decomposed:
        decomposed(args.data, args.decomposed)
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
