"""Which catalogue titles were grounded in, said where the numbers are read: one line naming it, and one per
system whose recommendations mostly fall outside it (then out-of-catalogue, novelty and coverage measure the
choice of catalogue more than the CRS)."""

from __future__ import annotations

from typing import Iterable

OUTSIDE = 0.5  # a system with more of its recommended titles outside the catalogue is flagged
KINDS = "ReDial's movies_id2info.json, the OpenDialKG KB or MovieLens movies.csv"


def catalogue_line(info, size: int, option: str) -> str:
    """``catalogue: sample-movies@… (36 films; crseval's bundled sample — name another with --kb)``."""
    bundled = "crseval's bundled sample — " if info.name.startswith("sample") else ""
    return f"catalogue: {info.signature()} ({size} films; {bundled}name another with {option})"


def outside_lines(rates: Iterable[tuple[str, float, float]], info, option: str) -> list[str]:
    """One line (or none) naming every (system, out-of-catalogue rate, titles recommended) above
    :data:`OUTSIDE`."""
    mostly = [f"{system} {rate:.0%}" for system, rate, n in rates if n > 0 and rate > OUTSIDE]
    if not mostly:
        return []
    return [
        f"most titles recommended are not in {info.name} ({', '.join(mostly)} outside): out-of-catalogue "
        f"and novelty then measure the catalogue — pass the one recommended from with {option} ({KINDS})"
    ]
