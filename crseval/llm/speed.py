"""Seconds per LLM call as measured on this machine, by model and by kind of request — a rating reads one
prompt and writes one token, a generation writes many — kept in crseval's home (``llm_speed.json``), so the
plan printed before a command's first run uses this machine's speed instead of a typical one.

Every client adds the calls its model answered (not the cached ones) when it closes; the record keeps a
running mean over the latest :data:`WINDOW` calls per model and kind. Writers in parallel processes may lose
each other's update (the file is replaced whole): it is an estimate, never an input of a result.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from crseval.core.home import crseval_home

WINDOW = 200  # calls a mean keeps: recent enough to follow a machine, long enough to be steady
KINDS = ("rating", "generation")


def _path() -> Path:
    return crseval_home() / "llm_speed.json"


def kind(choices: Sequence[str]) -> str:
    """A request's kind: a rating (it asks for choice probabilities) or a generation."""
    return "rating" if choices else "generation"


def model_key(identity: Mapping[str, Any]) -> str:
    """The model a speed belongs to: backend, model, engine and slots (what changes its speed)."""
    parts = [identity.get(k) for k in ("backend", "model", "engine", "slots")]
    return "/".join(str(p) for p in parts if p not in (None, ""))


def _read() -> dict[str, dict[str, list[float]]]:
    try:
        data = json.loads(_path().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record(identity: Mapping[str, Any], seconds: Mapping[str, Sequence[float]]) -> None:
    """Add ``seconds`` per call (kind → the calls' seconds) to this machine's record for the model."""
    fresh = {k: [s for s in v if s > 0] for k, v in seconds.items() if k in KINDS}
    if not any(fresh.values()):
        return
    data = _read()
    mine = data.setdefault(model_key(identity), {})
    for k, values in fresh.items():
        if not values:
            continue
        n, mean = mine.get(k, (0, 0.0))
        total = min(n, WINDOW - len(values)) if len(values) < WINDOW else 0
        mine[k] = [total + len(values), (total * mean + sum(values)) / (total + len(values))]
    path = _path()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        tmp.replace(path)
    except OSError:  # a read-only home: the plan falls back to a typical speed
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def measured(model: str, kind_: str) -> float | None:
    """This machine's mean seconds per call of that kind for the model (its :func:`model_key`), or None
    where none was measured."""
    found = _read().get(model, {}).get(kind_)
    try:
        return float(found[1]) if found and found[0] > 0 else None
    except (TypeError, ValueError, IndexError):
        return None
