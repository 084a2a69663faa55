"""Map a function over chunks of work in forked worker processes (Linux), one chunk per worker.

The function and the chunks are left in a module global before the pool forks, so workers inherit
them (fitted models, loaded sessions) instead of receiving pickled copies; only results travel back.
Forked, not spawned: a spawned worker would re-import the caller's ``__main__``, which breaks scripts
without a main guard.
"""

from __future__ import annotations

import gc
import os
import sys
from bisect import bisect_left
from itertools import accumulate
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")
_INHERITED: list = []  # (function, chunks) while a pool runs


def _run(k: int):
    function, chunks = _INHERITED[0]
    return function(chunks[k])


def worker_count(limit: int = 8) -> int:
    """Processes worth forking here: one per core up to ``limit``; 1 where fork is not the way (non-Linux)."""
    return max(1, min(os.cpu_count() or 1, limit)) if sys.platform.startswith("linux") else 1


def split(
    items: Sequence[T], parts: int, weight: Callable[[T], float] | None = None
) -> list[list[T]]:
    """``parts`` contiguous chunks of near-equal count — or of near-equal total ``weight`` (the work an
    item costs) — fewer when there are fewer items."""
    n = len(items)
    if weight is None or parts <= 1:
        bounds = [n * i // parts for i in range(parts + 1)]
    else:
        total = list(accumulate(weight(x) for x in items))
        bounds = (
            [0, *(bisect_left(total, total[-1] * i / parts) + 1 for i in range(1, parts)), n]
            if n
            else [0, 0]
        )
    return [list(items[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def fork_map(function: Callable[[list[T]], R], chunks: list[list[T]]) -> list[R]:
    """``[function(c) for c in chunks]``, each chunk in its own forked process."""
    if len(chunks) <= 1:
        return [function(c) for c in chunks]
    _INHERITED.append((function, chunks))
    gc.freeze()  # the inherited heap stays out of the workers' collections (no copy-on-write of every page)
    try:
        with ProcessPoolExecutor(len(chunks), mp_context=get_context("fork")) as pool:
            return list(pool.map(_run, range(len(chunks))))
    finally:
        gc.unfreeze()
        _INHERITED.clear()
