"""One writer per run directory. Two commands writing one folder at once each append the sessions the
other has not finished yet, so every such session is recorded twice and counted twice (measured: two
`shift run` of 100 sessions into one --out left 184 rows in shift_sessions). A run holds an OS lock on
``RUN/.crseval.lock`` (filelock: fcntl, or msvcrt on Windows) from before its job runs (the runner's
``RunStore.hold``; a store no runner locked, from its first write) until it closes; a second writer is
refused at once. The OS drops the lock when a process dies, so a killed run never
blocks the next. Stores of one process share the lock (counted), so a job may open its folder twice."""

from __future__ import annotations

import threading
from pathlib import Path

from filelock import FileLock, Timeout

from crseval.core.errors import CrsevalError

LOCK = ".crseval.lock"
_HELD: dict[Path, list] = {}  # folder → [its lock, how many stores of this process hold it]
_GUARD = threading.Lock()


def hold(root: Path) -> None:
    """Take ``root``'s writer lock (it must exist), or refuse: another process is writing there."""
    with _GUARD:
        if root in _HELD:
            _HELD[root][1] += 1
            return
        lock = FileLock(root / LOCK, timeout=0, thread_local=False)
        try:
            lock.acquire()
        except Timeout:
            raise CrsevalError(
                "another crseval command is writing this run directory",
                file=root,
                fix="wait for it to finish (then run the same command to resume), or pass another --out",
            ) from None
        _HELD[root] = [lock, 1]


def release(root: Path) -> None:
    """Give back one hold of ``root``'s lock; the last one frees it."""
    with _GUARD:
        held = _HELD.get(root)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            held[0].release()
            del _HELD[root]


def hold_new(root: Path) -> tuple[bool, Path | None]:
    """Make ``root`` (its missing parents too) and take its lock: (held, the highest folder made — None
    where ``root`` existed). A file in the way: (False, None), nothing made; the run's first write says
    so, after the job has said what is wrong with its input."""
    existed, missing = root.exists(), [p for p in root.parents if not p.exists()]
    try:
        root.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        return False, None
    hold(root)
    return True, None if existed else (missing[-1] if missing else root)


def remove_unwritten(root: Path, made: Path) -> None:
    """Remove ``root`` and the parents made with it (up to ``made``) where it holds nothing but the lock."""
    if [p.name for p in root.iterdir()] == [LOCK]:
        (root / LOCK).unlink()
        for folder in [root, *root.parents]:
            folder.rmdir()
            if folder == made:
                break
