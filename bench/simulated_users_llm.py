"""Does the LLM rewrite make simulated users harder to tell from people? (#73: offered only where it wins)

Runs what a researcher runs, as commands: ``crseval shift run`` with the template CRS and the realistic
users at 40 users × 12 turns, once with their own words (the named peer, measured in the same run) and
once with every turn rewritten by the embedded model (``[simulator.drift]``, temperature 0.7, 60 tokens:
the settings the shift guide describes), then ``crseval shift validate RUN --human CRSArena-Dial`` on each.
Prints the panel of discriminators member by member for both, their words per turn, the turns repeated
across dialogues and how many rewrites were kept; the ratio is the rewritten users' worst AUC over the
peer's. 40 users, not #73's 300: the rewrite costs seconds a turn on 2 cores (7–10 minutes here).

usage: python bench/simulated_users_llm.py [ARENA_FOLDER] [KB]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import _record as record
import pandas as pd
from simulated_users import ARENA, KB, _timed

SESSIONS = 40
CONFIG = """seed = 0
sessions = {sessions}
turns = 12
kb = "{kb}"
[simulator]
user = "realistic"
{drift}
[[models]]
name = "template"
kind = "template"
[judge]
enabled = false
"""
DRIFT = '[simulator.drift]\nbackend = "llamacpp"\ntemperature = 0.7\nmax_tokens = 60'
BOUNDS = {"AUC": "", "low": "_lo", "high": "_hi"}  # the 95 % CI's
USERS = {"own words": "", "rewritten by the embedded model": DRIFT}


def validated(name: str, arena: Path, kb: Path, tmp: Path) -> dict:
    """One side: the run and its validation, read back as the panel and a summary row."""
    run = tmp / name.replace(" ", "_")
    cfg = run.with_suffix(".toml")
    cfg.write_text(CONFIG.format(sessions=SESSIONS, kb=kb, drift=USERS[name]))
    t_run = _timed("shift", "run", str(cfg), "--out", str(run))
    t_val = _timed("shift", "validate", str(run), "--human", str(arena))
    tables = run / "validity" / "tables"
    turns = [
        t
        for line in (run / "records" / "results.jsonl").read_text().splitlines()
        for t in json.loads(line)["turns"]
    ]
    kept = Counter(
        "kept" if "rule_text" in t["truth"] else t["truth"].get("drift_error", "")
        for t in turns
        if t["user"].strip()
    )
    validity = pd.read_parquet(tables / "shift_validity.parquet").set_index("system")
    repeats = pd.read_parquet(tables / "shift_user_repeats.parquet").set_index("source")
    return {
        "panel": pd.read_parquet(tables / "shift_user_discriminator.parquet"),
        "summary": {
            "users": name,
            "shift run (s)": round(t_run, 1),
            "validate (s)": round(t_val, 1),
            "words per turn": round(float(validity.loc["template", "words_per_turn"]), 2),
            "words per turn, real users": round(
                float(validity.loc["human (split half)", "words_per_turn"]), 2
            ),
            "repeated turns": round(float(repeats.loc["template", "repeated_share"]), 3),
            "rewrites kept": kept.pop("kept", 0),
            "rule text said instead": ", ".join(f"{k} {n}" for k, n in kept.most_common() if k)
            or "—",
        },
    }


def main(arena: Path, kb: Path) -> int:
    if not arena.exists() or not kb.exists():
        print(f"skipped: {arena} or {kb} not found (the shared data)")
        return 0
    record.data(arena, kb)
    with tempfile.TemporaryDirectory() as tmp:
        sides = {name: validated(name, arena, kb, Path(tmp)) for name in USERS}
    members, worst = [], {}
    for name, side in sides.items():
        sim = side["panel"][side["panel"]["source"] == "template"].set_index("member")
        worst[name] = float(sim["discriminator_auc"].max())
        for m, row in sim.iterrows():
            members.append(
                {"member": m, "users": name}
                | {k: round(float(row[f"discriminator_auc{s}"]), 3) for k, s in BOUNDS.items()}
            )
    ratio = worst["rewritten by the embedded model"] / worst["own words"]
    size = f"{SESSIONS} users × 12 turns, template CRS; peer: the users' own words"
    summary = [side["summary"] for side in sides.values()]
    record.table(
        f"Simulated users rewritten by the embedded LLM against CRSArena-Dial's users ({size})",
        summary,
        f"worst AUC rewritten / own words: {ratio:.2f}",
    )
    record.table(
        f"The panel member by member ({size}; AUC, low and high: its 95 % CI; .5 = like people)",
        members,
    )
    for r in summary + members:
        print(r)
    print(f"worst AUC rewritten / own words: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    sys.exit(record.run(lambda: main(*(args + [ARENA, KB][len(args) :]))))
