"""What a researcher's own code prints never reaches crseval's output.

A CRS under test may ``print`` (``DEBUG: got 1 turns``) from any of the threads that call it; on
crseval's stdout that would break ``--format json`` and split the progress lines. While a CRS call runs
(:func:`captured`), what its thread writes to ``sys.stdout`` or ``sys.stderr`` is kept apart and handed,
line by line, to the run's log (:func:`to_log`, set by the runner); every other thread writes through
unchanged. Without a run (a CRS called from Python on its own) the lines go to stderr, never stdout.
"""

from __future__ import annotations

import io
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

_local = threading.local()
_sink: list[Callable[[str], None]] = []  # the innermost run's log writer last


class _Routed(io.TextIOBase):
    """A stream that sends a capturing thread's writes to its buffer and every other write on."""

    def __init__(self, real: io.TextIOBase) -> None:
        self.real = real

    def write(self, text: str) -> int:
        buffer = getattr(_local, "buffer", None)
        if buffer is None:
            return self.real.write(text)
        buffer.append(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_local, "buffer", None) is None:
            self.real.flush()

    def __getattr__(self, name: str):  # encoding, isatty, fileno, … as the real stream has them
        return getattr(self.real, name)


def _install() -> None:
    for name in ("stdout", "stderr"):
        if not isinstance(getattr(sys, name), _Routed):
            setattr(sys, name, _Routed(getattr(sys, name)))


@contextmanager
def captured(who: str) -> Iterator[None]:
    """Keep what this thread prints inside the block; afterwards each non-empty line goes to the run's
    log as ``CRS <who> printed: …``."""
    _install()
    outer = getattr(_local, "buffer", None)
    _local.buffer = []
    try:
        yield
    finally:
        text, _local.buffer = "".join(_local.buffer), outer
        lines = [f"CRS {who} printed: {line}" for line in text.splitlines() if line.strip()]
        if lines:
            _emit(lines)


def _emit(lines: list[str]) -> None:
    if _sink:
        for line in lines:
            _sink[-1](line)
        return
    real = sys.stderr.real if isinstance(sys.stderr, _Routed) else sys.stderr
    real.write("".join(line + "\n" for line in lines))


@contextmanager
def to_log(write: Callable[[str], None]) -> Iterator[None]:
    """Send what CRSs print inside the block to ``write`` (the run's log)."""
    _sink.append(write)
    try:
        yield
    finally:
        _sink.remove(write)
