"""Which catalogue each CRS was built on: one catalogue for every CRS, or ``name=path`` entries where a
CRS whose name ends with ``_name`` is grounded in ``path`` (CRSArena-Dial's ``kbrd_redial`` in ReDial's
movies, ``unicrs_opendialkg`` in OpenDialKG's KB). ``crseval criterion --catalog`` and ``crseval shift
score --kb`` read the same spelling."""

from __future__ import annotations

from typing import Iterable

from crseval.core.errors import CrsevalError


def catalogues(spec: str, option: str = "catalog") -> dict[str, str]:
    """``name=path`` entries, or one path for every CRS (name ``""``)."""
    entries = [e.strip() for e in spec.split(",") if e.strip()]
    if len(entries) == 1 and "=" not in entries[0]:
        return {"": entries[0]}
    out = {}
    for e in entries:
        name, eq, path = e.partition("=")
        if not (eq and name.strip() and path.strip()):
            raise CrsevalError(
                f"catalogue entry {e!r}",
                field=option,
                expected="one catalogue, or name=path entries (redial=…,opendialkg=…)",
            )
        out[name.strip()] = path.strip()
    return out


def catalogue_of(system: str, names: Iterable[str], option: str = "catalog") -> str:
    """The entry whose name ends the CRS's name (``""`` when one catalogue serves every CRS)."""
    names = list(names)
    if names == [""]:
        return ""
    found = next((n for n in names if system.endswith(f"_{n}")), None)
    if found is None:
        raise CrsevalError(
            f"no catalogue for {system!r}",
            field=option,
            expected="an entry whose name ends the CRS's: " + ", ".join(names),
        )
    return found
