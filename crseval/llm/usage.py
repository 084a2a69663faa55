"""What a run asked of its LLMs, per role — the CRS, the simulated user, the judge, the serendipity
evaluator, … —: requests, cache hits, retries, failures, tokens, seconds and, where the LLM config gives
prices per million tokens, the cost. :func:`crseval.api.execute` collects every client made while a job
runs and writes the run's ``llm_usage`` table."""

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


def usage_table(clients: list[Any]) -> pd.DataFrame:
    """One row per (role, backend, model), the clients' statistics summed; ``cost_usd`` from the config's
    prices (NaN where it gives none)."""
    rows = []
    for c in clients:
        ident, stats = c.identity(), c.stats.as_dict()
        price_in, price_out = c.prices
        cost = (
            stats["prompt_tokens"] / 1e6 * price_in + stats["completion_tokens"] / 1e6 * price_out
            if price_in is not None and price_out is not None
            else np.nan
        )
        rows.append(
            {
                "role": c.role,
                "backend": ident.get("backend"),
                "model": ident.get("model"),
                **{k: stats[k] for k in SUMMED},
                "cost_usd": cost,
            }
        )
    df = pd.DataFrame(rows)
    return (
        df.groupby(["role", "backend", "model"], sort=False, dropna=False)
        .agg({**{k: "sum" for k in SUMMED}, "cost_usd": lambda s: s.sum(min_count=1)})
        .reset_index()
    )
