"""Simulated users against real ones, and what the realistic user costs.

Runs what a researcher runs, as commands: ``crseval shift run`` with the card's CRSs (template, stubborn,
the example CRS) and the lister (the template answering with a numbered list, as most of the arena's CRSs
do: the users talk about the list they were shown) at 300 users × 12 turns (#73's bar) with each simulated user — the named peer is the
scripted user of earlier releases, measured in the same run —, then ``crseval shift validate RUN --human
CRSArena-Dial`` on each (its wall time is the figure #73 bounds at 90 s). Prints the panel of
discriminators against CRSArena-Dial's users (each member's AUC for the template's users, and the worst),
the turns repeated across dialogues beside real users', the counterfactual signs and the time ratio
realistic / scripted for the sessions.

usage: python bench/simulated_users.py [ARENA_FOLDER] [KB]
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
ARENA = ROOT.parent / "shared" / "data" / "arena" / "crsarena_dial"
KB = ROOT.parent / "shared" / "data" / "opendialkg" / "opendialkg_movie_data.json"
SESSIONS = 300
CRSS = ("template", "stubborn", "my_crs", "lister")
CONFIG = """seed = 0
sessions = {sessions}
turns = 12
kb = "{kb}"
[simulator]
user = "{user}"
[[models]]
name = "template"
kind = "template"
[[models]]
name = "stubborn"
kind = "reference"
reference = "stubborn"
[[models]]
name = "my_crs"
kind = "callable"
target = "{crs}"
[[models]]
name = "lister"
kind = "reference"
reference = "lister"
[judge]
enabled = false
"""


def _timed(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "crseval.cli.main", *args], check=True, capture_output=True
    )
    return time.perf_counter() - start


def _auc(row: pd.Series) -> str:
    lo, hi = row["discriminator_auc_lo"], row["discriminator_auc_hi"]
    return f"{row['discriminator_auc']:.3f} [{lo:.3f}, {hi:.3f}]"


def validated(
    user: str, arena: Path, kb: Path, tmp: Path, also: tuple[Path, ...] = ()
) -> tuple[dict[str, pd.DataFrame], float, float]:
    """``crseval shift run`` of the card's CRSs with simulated user ``user``, then ``crseval shift validate
    RUN --human ARENA [--also OTHERS]``: its tables (``shift_user_discriminator``, ``shift_user_repeats``,
    ``shift_user_counterfactual``, ``shift_user_outcomes``, ``shift_user_alignment``) and both commands'
    seconds. ``also``: other real users read by the panel the same way (its human-vs-human rows)."""
    cfg = tmp / f"{user}.toml"
    crs = f"{ROOT / 'examples' / 'my_crs.py'}:respond"
    cfg.write_text(CONFIG.format(kb=kb, user=user, crs=crs, sessions=SESSIONS))
    run = tmp / user
    t_run = _timed("shift", "run", str(cfg), "--out", str(run))
    others = ["--also", ",".join(map(str, also))] if also else []
    t_val = _timed("shift", "validate", str(run), "--human", str(arena), *others)
    tables = run / "validity" / "tables"
    names = ("discriminator", "repeats", "counterfactual", "outcomes", "alignment")
    return (
        {f"shift_user_{n}": pd.read_parquet(tables / f"shift_user_{n}.parquet") for n in names},
        t_run,
        t_val,
    )


def main(arena: Path, kb: Path) -> int:
    if not arena.exists() or not kb.exists():
        print(f"skipped: {arena} or {kb} not found (the shared data)")
        return 0
    record.data(arena, kb)
    rows, members = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for user in ("scripted", "realistic"):
            tables, t_run, t_val = validated(user, arena, kb, Path(tmp))
            disc = tables["shift_user_discriminator"]
            by = disc.set_index(["member", "source"])
            for m in disc["member"].unique():
                members.append(
                    {"simulated user": user, "member": m}
                    | {f"AUC {s}": _auc(by.loc[(m, s)]) for s in CRSS}
                    | {
                        "floor": round(
                            float(by.loc[(m, "human (split half)"), "discriminator_auc"]), 3
                        )
                    }
                )
            worst = disc[disc["source"] == "template"].nlargest(1, "discriminator_auc").iloc[0]
            rep = tables["shift_user_repeats"].set_index("source")["repeated_share"]
            cf = tables["shift_user_counterfactual"]
            clear = cf[cf["real_clear"]]
            rows.append(
                {
                    "simulated user": user,
                    "shift run (s)": round(t_run, 1),
                    "validate (s)": round(t_val, 1),
                    "worst AUC, template's users [95 % CI]": _auc(worst),
                    "worst member": worst["member"],
                    "repeated turns (template / real)": f"{rep['template']:.0%} / {rep['real users']:.0%}",
                    "signs agree (of 5)": int(cf["sign_agrees"].sum()),
                    "clear signs agree": f"{int(clear['sign_agrees'].sum())} of {len(clear)}",
                }
            )
    ratio = rows[1]["shift run (s)"] / rows[0]["shift run (s)"]
    size = f"{SESSIONS} × 12, {len(CRSS)} CRSs"
    record.table(
        f"Simulated users against CRSArena-Dial's users ({size}; peer: the scripted user)",
        rows,
        f"sessions' time realistic / scripted: {ratio:.2f}",
    )
    record.table(
        f"The panel of discriminators, member by member ({size}; AUC with 95 % CI, .5 = like people)",
        members,
    )
    for r in rows + members:
        print(r)
    print(f"realistic / scripted session time: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    sys.exit(record.run(lambda: main(*(args + [ARENA, KB][len(args) :]))))
