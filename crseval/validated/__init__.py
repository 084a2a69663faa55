"""The validated figures crseval ships, one JSON record per check of the validity gate (``make validate``,
``tools/validate.py``): what a default command measured on the shared data, with the command, its date,
commit and the data's content hashes and, where a figure has one, its target — never a tolerance: how far a
figure may move follows from the method that produced it and is declared once, beside the check
(``tools/validity_checks.py``).
The machine writes them (``make validate ARGS=--update``) and the package reads them — the card's "real
users" column (`crseval/card/real_users.py`), the simulator's evidence — so a measured number is typed
nowhere by hand. The gate re-measures every record and fails when a figure leaves its check's tolerance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from crseval.core.errors import CrsevalError

HOME = Path(__file__).resolve().parent


class Record(BaseModel):
    check: str  # the file's stem
    command: str  # what measured it, as a user types it
    date: str = ""
    commit: str = ""
    data: dict[str, str] = Field(default_factory=dict)  # input file → content hash
    key: list[str]  # the columns that name a row (the others are figures)
    # figure column → [low, high]: where the figure should be; a recorded figure outside is a known failure
    target: dict[str, list[float]] = Field(default_factory=dict)
    known: str = ""  # why a figure misses its target, and the issue that owns it
    rows: list[dict[str, Any]]

    def row(self, **key: Any) -> dict[str, Any] | None:
        """The recorded row whose key columns equal ``key`` (None: not recorded)."""
        for r in self.rows:
            if all(r.get(k) == v for k, v in key.items()):
                return r
        return None


def path(check: str) -> Path:
    return HOME / f"{check}.json"


def load(check: str) -> Record:
    """The shipped record of ``check``."""
    try:
        return Record.model_validate(json.loads(path(check).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise CrsevalError(
            f"no record of the validated figures {check!r}",
            fix="make validate ARGS='--update --only " + check + "' (needs ../shared/data)",
        ) from None


def save(record: Record) -> Path:
    out = path(record.check)
    out.write_text(
        json.dumps(record.model_dump(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return out
