"""What a run asked of its LLMs, per role — the CRS, the simulated user, the judge, the serendipity
evaluator, … —: requests, cache hits, retries, failures, tokens, seconds and, where the LLM config gives
prices per million tokens, the cost. Seconds come three ways: ``llm_seconds`` sums each call's wall time;
``wait_s`` sums the part a call queued (for a client slot, or for the one embedded model that other roles
were using); ``busy_s`` is the time the model worked for the role — the union of its calls' working
intervals, so calls in flight together count once. :func:`crseval.api.execute` collects every client
made while a job runs and writes the run's ``llm_usage`` table."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, Iterator

import numpy as np
import pandas as pd

from crseval.llm.client import CallStats

_COLLECTORS: list[list[Any]] = []
_LOCK = threading.Lock()
SUMMED = tuple(f.name for f in fields(CallStats))  # what a client counts, summed per role


def register(client: Any) -> None:
    """Count ``client`` in the run being collected (the innermost, for a job built from others)."""
    with _LOCK:
        if _COLLECTORS:
            _COLLECTORS[-1].append(client)


@contextmanager
def collecting() -> Iterator[list[Any]]:
    clients: list[Any] = []
    with _LOCK:
        _COLLECTORS.append(clients)
    try:
        yield clients
    finally:
        with _LOCK:
            _COLLECTORS.remove(clients)


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of (start, end) intervals."""
    total, reached = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total


def usage_table(clients: list[Any]) -> pd.DataFrame:
    """One row per (role, backend, model), the clients' statistics summed, ``busy_s`` the union of their
    working intervals; ``cost_usd`` from the config's prices (NaN where it gives none)."""
    rows, intervals = [], {}
    for c in clients:
        ident, stats = c.identity(), c.stats.as_dict()
        price_in, price_out = c.prices
        cost = (
            stats["prompt_tokens"] / 1e6 * price_in + stats["completion_tokens"] / 1e6 * price_out
            if price_in is not None and price_out is not None
            else np.nan
        )
        key = (c.role, ident.get("backend"), ident.get("model"))
        intervals.setdefault(key, []).extend(getattr(c, "intervals", ()))
        rows.append(
            {
                "role": c.role,
                "backend": ident.get("backend"),
                "model": ident.get("model"),
                **{k: stats[k] for k in SUMMED},
                "cost_usd": cost,
            }
        )
    df = (
        pd.DataFrame(rows)
        .groupby(["role", "backend", "model"], sort=False, dropna=False)
        .agg({**{k: "sum" for k in SUMMED}, "cost_usd": lambda s: s.sum(min_count=1)})
        .reset_index()
    )
    df.insert(
        df.columns.get_loc("wait_s") + 1,
        "busy_s",
        [busy_seconds(intervals.get(key, [])) for key in zip(df.role, df.backend, df.model)],
    )
    return df
