"""One deterministic order for keyed records, whatever order parallel work finished in."""

from __future__ import annotations

import re
from typing import Any, Iterable


def key_order(key: Any) -> tuple:
    """Sort key of a record key: its '|'-separated parts, numbers compared as numbers ('m|2' before 'm|10')."""
    return tuple(
        (0, int(p), "") if re.fullmatch(r"-?\d+", p) else (1, 0, p) for p in str(key).split("|")
    )


def in_key_order(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records sorted by their ``key`` (records without one keep their place at the end)."""
    records = list(records)
    keyed = [r for r in records if "key" in r]
    return sorted(keyed, key=lambda r: key_order(r["key"])) + [r for r in records if "key" not in r]
