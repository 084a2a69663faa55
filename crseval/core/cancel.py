"""Stopping long work within seconds (Ctrl-C, SIGTERM).

The CLI's signal handler calls :func:`cancel` and raises ``KeyboardInterrupt`` in the main thread. From
then on every LLM client refuses new requests (:class:`Interrupted`, never recorded as a failed result),
thread pools stop taking work, and the abort hooks registered by backends run — the embedded model's
worker processes are killed, so a request in flight ends at once instead of after its generation.
Everything that finished was flushed to the run's records already; the same command resumes.
"""

from __future__ import annotations

import threading
from typing import Callable

_EVENT = threading.Event()
_HOOKS: dict[int, Callable[[], None]] = {}
_LOCK = threading.Lock()


class Interrupted(Exception):
    """Raised where work notices that the run was cancelled (not a failure of the work itself)."""

    def __init__(self) -> None:
        super().__init__("interrupted")


def cancel() -> None:
    _EVENT.set()
    with _LOCK:
        hooks = list(_HOOKS.values())
    for hook in hooks:
        try:
            hook()
        except Exception:  # an abort hook must never stop the others
            pass


def cancelled() -> bool:
    return _EVENT.is_set()


def check() -> None:
    if _EVENT.is_set():
        raise Interrupted()


def on_cancel(owner: object, hook: Callable[[], None]) -> None:
    """Run ``hook`` when the run is cancelled (replaces an earlier hook of the same owner)."""
    with _LOCK:
        _HOOKS[id(owner)] = hook


def forget(owner: object) -> None:
    with _LOCK:
        _HOOKS.pop(id(owner), None)


def reset() -> None:
    """Back to not cancelled (tests; a new command in the same process)."""
    _EVENT.clear()
