"""Pairwise votes between systems, as a CRS arena publishes them (CRSArena-Dial's ``votes_*.csv``):
``crs1, crs2, vote`` where ``vote`` is one of the two systems or ``tie``, plus optional ``session_id``,
``user_id`` and ``feedback``. File order is kept: it is the time order sequential Elo depends on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.data.io import DatasetInfo, dataset_info, existing, read_rows

TIE = "tie"


@dataclass
class Votes:
    info: DatasetInfo
    data: (
        pd.DataFrame
    )  # crs1, crs2, vote, user, session, feedback, line — one row per vote, in file order

    @property
    def systems(self) -> list[str]:
        return sorted(set(self.data["crs1"]) | set(self.data["crs2"]))

    def __len__(self) -> int:
        return len(self.data)

    def summary(self) -> dict:
        d = self.data
        return {
            "votes": len(d),
            "systems": len(self.systems),
            "ties": int((d["vote"] == TIE).sum()),
            "users": int(d["user"].replace("", None).nunique()),
            "with feedback": int((d["feedback"] != "").sum()),
        }

    def preview(self, n: int = 1) -> str:
        return self.data.drop(columns=["line"]).head(max(n, 1) * 5).to_string(index=False)


def load_votes(path: str | Path) -> Votes:
    """A votes file (crs1, crs2, vote[, …]), or ``sample``: the bundled votes."""
    if str(path) == "sample":
        from crseval.data.bundled import sample_dir

        path = sample_dir() / "votes.csv"
    p = existing(path, "votes file")
    _, rows = read_rows(p, required=("crs1", "crs2", "vote"))
    out = []
    for line, row in rows:
        a, b, vote = row["crs1"].strip(), row["crs2"].strip(), row["vote"].strip()
        if not a or not b:
            raise CrsevalError(
                "empty system name", file=p, line=line, field="crs1" if not a else "crs2"
            )
        if a == b:
            raise CrsevalError(
                f"a system voted against itself ({a})", file=p, line=line, field="crs2"
            )
        if vote.lower() == TIE:
            vote = TIE
        elif vote not in (a, b):
            raise CrsevalError(
                f"vote {vote!r} is neither system of the pair",
                file=p,
                line=line,
                field="vote",
                expected=f"{a}, {b} or tie",
            )
        out.append(
            {
                "crs1": a,
                "crs2": b,
                "vote": vote,
                "user": row.get("user_id", "").strip(),
                "session": row.get("session_id", "").strip(),
                "feedback": row.get("feedback", "").strip(),
                "line": line,
            }
        )
    if not out:
        raise CrsevalError("no votes", file=p, expected="a header and one row per vote")
    return Votes(dataset_info(f"votes:{p.stem}", p), pd.DataFrame(out))


def votes_beside(dialogues: str | Path) -> list[Path]:
    """The votes of a CRSArena-Dial layout: every ``votes*.csv`` in its folder, or for one of its files
    (``crs_arena_dial_<crowd>.json``) the ``votes_<crowd>*.csv`` beside it; none for anything else."""
    p = Path(dialogues)
    if not p.exists():
        return []
    folder, crowd = (p, "") if p.is_dir() else (p.parent, p.stem.rsplit("_", 1)[-1])
    return sorted(folder.glob(f"votes_{crowd}*.csv" if crowd else "votes*.csv"))


def decided_battles(files) -> list[tuple[str, str, str]]:
    """(user, the system voted for, the one voted against) of every vote that is not a tie and names its
    user, over ``files`` in order."""
    out = []
    for f in files:
        for v in load_votes(f).data.itertuples():
            if v.vote != TIE and v.user:
                out.append((v.user, v.vote, v.crs2 if v.vote == v.crs1 else v.crs1))
    return out


def published_ranking(path: str | Path, crowd: str) -> dict[str, float]:
    """system → Elo from a published table (``crowd,system,elo``, CRSArena-Dial's published_elo.csv) for
    ``crowd`` (all rows where the table has no crowd column)."""
    p = existing(path, "published ranking")
    _, rows = read_rows(p, required=("system", "elo"))
    out = {}
    for line, row in rows:
        if row.get("crowd", crowd).strip() != crowd:
            continue
        try:
            out[row["system"].strip()] = float(row["elo"])
        except ValueError:
            raise CrsevalError("elo is not a number", file=p, line=line, field="elo") from None
    if not out:
        raise CrsevalError(f"no ranking for crowd {crowd!r}", file=p, field="crowd")
    return out
