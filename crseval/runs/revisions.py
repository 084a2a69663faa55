"""A run's CRS code that changed since it began: under ``--retry-failed`` a fixed file is a *revision*
(recorded, and it answers what runs again), not another run; and a manifest part that needs another part
which ran again (or that an earlier crseval recorded otherwise) is *stale*, computed again rather than
refused."""

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


def stale(folder: Path, record: dict[str, Any]) -> bool:
    """Whether the run in ``folder`` — a manifest part that needs others — is not ``record``'s run: the
    part it reads ran again (``--retry-failed``), or an earlier crseval recorded it otherwise. Derived
    from those parts, it is computed again rather than refused."""
    try:
        old = read_json(folder / "config.json") if (folder / "config.json").is_file() else None
    except CrsevalError:
        return False
    new = json.loads(json.dumps(record, default=str))
    return isinstance(old, dict) and any(old.get(k) != new[k] for k in ("job", "config", "data"))
