"""What a user waits for: the three LLM commands the README times, run as the user runs them (a fresh run
directory, the embedded model, no flag beyond the README's), against the named peer — the same commands
on an earlier commit of crseval (default ``49642bd``, the code before the judge read the prebuilt engine's
hidden states and the plan read this machine's speed), checked out in a temporary git worktree and run with
the same interpreter and libraries, so only crseval's code differs.

1. ``crseval judge meta-eval CRSArena-Eval --aspects dialogue_overall --limit 105`` (105 dialogues, the
   size of the held-back set; the peer's shipped judge falls back to the LLM's questions alone, which the
   table's Pearson shows);
2. ``crseval demo`` (every capability, small, on the bundled data);
3. ``crseval evaluate-crs examples/my_crs.py`` (the LLM card at its default 6 users).

Each command runs on this code, then on the peer, one after the other (never beside each other): what its
``--dry-run`` plan said it would take and how far that was from the real time (#77: within a factor 1.5),
seconds, the ratio to the peer (< 1 is faster), and the budget each has in #76 (judge ≤ 10 min, demo ≤ 3 min, card
≤ 5 min on 2 cores). Crseval's home cache (encoders, pair models) is warm for both; the LLM cache lives in
the run directory, so every LLM call is made.

Both sides run from a temporary git worktree (this code: ``--now``, default HEAD), so an edit made while
the benchmark runs changes neither.

usage: python bench/default_commands.py [--now REV] [--peer REV] [--only judge,demo,card]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

from crseval.runs.formats import markdown_table

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "data" / "judgments" / "crsarena_eval" / "crs_arena_eval_train.json"
COMMANDS = {  # name → (arguments after `crseval`, budget in s)
    "judge": (
        ["judge", "meta-eval", str(EVAL), "--aspects", "dialogue_overall", "--limit", "105"],
        600,
    ),
    "demo": (["demo"], 180),
    "card": (["evaluate-crs", "examples/my_crs.py"], 300),  # the checkout's own example
}


def timed(args: list[str], code: Path, out: Path) -> tuple[float, int, str]:
    """(seconds, exit status, last lines of output) of ``crseval ARGS --out OUT`` importing crseval from
    ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code))
    t0 = time.perf_counter()
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "from crseval.cli.main import main; main()",
            *args,
            "--out",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=code,
    )
    return time.perf_counter() - t0, p.returncode, (p.stdout + p.stderr)[-1500:]


def planned(args: list[str], code: Path, out: Path) -> float | None:
    """The seconds the command's ``--dry-run`` plan says it will take (its "about N min/s", plus loading
    the model), before anything runs."""
    _, _, said = timed([*args, "--dry-run"], code, out)
    about = re.search(r"about (\d+(?:\.\d+)?) (min|s)", said)
    if not about:
        return None
    load = re.search(r"\+ (\d+) s loading", said)
    return float(about[1]) * (60 if about[2] == "min" else 1) + (float(load[1]) if load else 0)


def first_judge(out: Path) -> tuple[str, float] | tuple[None, None]:
    """The judge run's first dialogue-overall row (the default judge): its name and Pearson."""
    path = out / "tables" / "meta_eval.csv"
    if not path.exists():
        return None, None
    row = pd.read_csv(path).query("aspect == 'dialogue-overall'").iloc[0]
    return row["judge"], round(float(row["pearson"]), 3)


def git(*args: str) -> None:
    subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--now", default="HEAD", help="the commit whose code is measured")
    ap.add_argument("--peer", default="49642bd", help="the commit whose code is the named peer")
    ap.add_argument("--only", default=",".join(COMMANDS), help="a comma list of judge, demo, card")
    a = ap.parse_args()
    names = [n for n in a.only.split(",") if n]
    if "judge" in names and not EVAL.exists():
        print(f"skip judge: CRSArena-Eval not found at {EVAL} (see ../shared/data/README.md)")
        names.remove("judge")
    record.data(*([EVAL] if "judge" in names else []))
    rows = []
    with tempfile.TemporaryDirectory(prefix="crseval-bench-") as tmp:
        trees = {label: Path(tmp) / label for label in ("now", "peer")}
        for label, rev in (("now", a.now), ("peer", a.peer)):
            git("worktree", "add", "--detach", str(trees[label]), rev)
        try:
            for name in names:
                args, budget = COMMANDS[name]
                row = {"command": "crseval " + " ".join(Path(x).name for x in args)}
                for label, code in trees.items():
                    out = Path(tmp) / f"{name}-{label}"
                    plan = planned(args, code, out)
                    s, rc, tail = timed(args, code, out)
                    print(f"{name} on {label}: {s:.0f} s, exit {rc}", flush=True)
                    if rc:
                        print(tail)
                    row[f"{label} s"] = round(s)
                    row[f"{label} plan s"] = plan
                    row[f"{label} plan/real"] = round(plan / s, 2) if plan else None
                    row[f"{label} exit"] = rc
                    if name == "judge":
                        row[f"{label} judge"], row[f"{label} pearson"] = first_judge(out)
                row["ratio"] = round(row["now s"] / row["peer s"], 2)
                row["budget s"] = budget
                row["within"] = row["now s"] <= budget
                rows.append(row)
        finally:
            for tree in trees.values():
                git("worktree", "remove", "--force", str(tree))
    record.table(
        f"The README's LLM commands, each alone on {os.cpu_count()} cores: crseval at {a.now} against the "
        f"peer, crseval at {a.peer} (the same interpreter and libraries)",
        rows,
        note="ratio = now / peer (< 1 is faster); budget = #76's limit on 2 cores; the judge's Pearson is "
        "in-sample (the shipped judge was fitted on these dialogues): it shows which judge ran, not how good",
    )
    print(markdown_table(pd.DataFrame(rows)))
    return 0 if all(r["now exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(record.run(main))
