"""A run's CRS code that changed since it began: under ``--retry-failed`` a fixed file is a *revision*
(recorded, and it answers what runs again), not another run; and a manifest part that needs another part
which ran again is *stale*, computed again rather than refused."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from crseval.core.errors import CrsevalError
from crseval.runs.view import read_json


def revisions(old: dict[str, Any], record: dict[str, Any]) -> list[dict[str, str]] | None:
    """Where ``record`` differs from the run ``old`` only in a CRS's code (``record["code"]``: a file the
    researcher fixed before ``--retry-failed``): each field's change; None when anything else differs."""
    new = json.loads(json.dumps(record, default=str))
    if old.get("job") != new["job"] or old.get("config") != new["config"]:
        return None
    before, after = old.get("data") or {}, new["data"]
    changed = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
    if (
        not changed
        or not set(changed) <= set(new.get("code", []))
        or not set(changed) <= set(before)
    ):
        return None
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    return [{"field": k, "from": before[k], "to": after[k], "date": when} for k in changed]


def stale(folder: Path, record: dict[str, Any], needs: str) -> bool:
    """Whether the run in ``folder`` is ``record``'s but for the content of a part it needs (its input
    data fields ``needs.NAME``): that part ran again since (``--retry-failed``), so this one is computed
    again from it rather than refused."""
    try:
        old = read_json(folder / "config.json") if (folder / "config.json").is_file() else None
    except CrsevalError:
        return False
    new = json.loads(json.dumps(record, default=str))
    if not isinstance(old, dict) or (old.get("job"), old.get("config")) != (
        new["job"],
        new["config"],
    ):
        return False
    before, after = old.get("data") or {}, new["data"]
    changed = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
    return bool(changed) and all(k.startswith(f"{needs}.") for k in changed)
