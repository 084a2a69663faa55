"""One limit for every file crseval reads: no line longer than ``CRSEVAL_MAX_LINE_BYTES`` (default
10 MiB). A 50 MB single line is a broken export or an attack, not data; it is refused with the limit
named instead of being parsed for minutes and copied into a report."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from crseval.core.errors import CrsevalError

MAX_LINE_BYTES = int(os.environ.get("CRSEVAL_MAX_LINE_BYTES", 10 * 2**20))


def longest_line(data: bytes) -> tuple[int, int]:
    """(length in bytes, 1-based number) of the longest line."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    lengths = np.diff(np.concatenate([[-1], ends, [len(data)]])) - 1
    i = int(np.argmax(lengths))
    return int(lengths[i]), i + 1


def check_lines(data: bytes, path: str | Path) -> None:
    if len(data) > MAX_LINE_BYTES:
        longest, line = longest_line(data)
        if longest > MAX_LINE_BYTES:
            raise CrsevalError(
                f"line is {longest:,} bytes long; the limit is {MAX_LINE_BYTES:,}",
                file=path,
                line=line,
                fix="split the record, or raise the limit with CRSEVAL_MAX_LINE_BYTES",
            )
