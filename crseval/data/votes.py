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
