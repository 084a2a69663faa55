"""The one key format of resumable records: a record's identifying parts joined by ``|``."""

from __future__ import annotations

from typing import Hashable


def key(*parts: Hashable) -> str:
    """``key("template", 3)`` → ``"template|3"``; ``key(judge, "s0", item, aspect)`` → ``"judge|s0|item|aspect"``."""
    return "|".join(str(p) for p in parts)
