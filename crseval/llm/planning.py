"""Counting the LLM calls a run would make, without making one.

The job runs once, in a scratch copy of its run directory, with every LLM client answered by a stand-in:
the scripted backend's deterministic replies under the *real* backend's identity, so each request's
cache key is the real one and the run's own cache says which calls are already paid for. Calls whose
prompt depends on an earlier reply (a CRS's next turn, a judgment of a generated dialogue) cannot be
found in the cache this way and count as new: the plan is an upper bound there.
"""

from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from crseval.core.errors import BackendError
from crseval.llm import speed
from crseval.llm.base import ChatRequest, ChatResponse
from crseval.llm.cache import ResponseCache
from crseval.llm.scripted import ScriptedBackend

DEFAULT_SECONDS = {
    "llamacpp": 8.0,
    "openai": 2.0,
    "scripted": 0.0,
}  # per call, when the cache has no history
LOAD_SECONDS = {"llamacpp": 15.0}  # starting the embedded model (2 cores, measured: 10–25 s)


@dataclass
class Plan:
    calls: int = 0
    cached: int = 0
    by_model: dict[str, int] = field(default_factory=dict)
    seconds_per_call: float = 0.0
    measured: bool = False
    load_seconds: float = 0.0  # loading the model(s) before the first new call
    # where seconds_per_call comes from when measured: this run's cache, or this machine (llm/speed.py)
    source: str = "this run's cache"

    @property
    def new(self) -> int:
        return self.calls - self.cached

    def __add__(self, other: "Plan") -> "Plan":
        """Two plans as one: calls and models summed; the time per call the one that gives their total; a
        model both use loaded once."""
        new = self.new + other.new
        eta = self.new * self.seconds_per_call + other.new * other.seconds_per_call
        models = dict(self.by_model)
        for m, n in other.by_model.items():
            models[m] = models.get(m, 0) + n
        return Plan(
            self.calls + other.calls,
            self.cached + other.cached,
            models,
            eta / new if new else max(self.seconds_per_call, other.seconds_per_call),
            self.measured or other.measured,
            # parts of one command share a model's process (the pool is keyed by its identity): it loads once
            max(self.load_seconds, other.load_seconds)
            if set(self.by_model) & set(other.by_model)
            else self.load_seconds + other.load_seconds,
            self.source if self.measured else other.source,
        )

    def line(self) -> str:
        if not self.calls:
            return "plan: no LLM calls to make (nothing needs one, or the run directory already holds the work)"
        eta = self.new * self.seconds_per_call + self.load_seconds
        load = f" + {self.load_seconds:.0f} s loading the model" if self.load_seconds else ""
        how = f"measured in {self.source}" if self.measured else "a typical speed for this backend"
        models = ", ".join(f"{m}: {n}" for m, n in self.by_model.items())
        return (
            f"plan: {self.calls} LLM calls ({self.cached} already cached, {self.new} to make; {models}) — "
            f"about {_duration(eta)} at ~{self.seconds_per_call:.1f} s per call ({how}){load}"
        )


def _duration(seconds: float) -> str:
    return (
        f"{seconds:.0f} s"
        if seconds < 120
        else f"{seconds / 60:.0f} min"
        if seconds < 7200
        else f"{seconds / 3600:.1f} h"
    )


class _Recorder:
    """Counts a planning run's requests. Exporting (``export=True``), it also keeps every request the cache
    cannot answer, and the stand-in answers with the cached real answer or not at all — so the run goes
    exactly as far as real answers take it, and what it keeps is the next round of a batch."""

    def __init__(self, cache_path: Path | None, export: bool = False) -> None:
        self.plan = Plan()
        self.cache = ResponseCache(cache_path) if cache_path and Path(cache_path).exists() else None
        self.export = export
        self.pending: dict[str, tuple[ChatRequest, dict[str, Any]]] = {}
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        self._latency: list[float] = []
        self._new: Counter[tuple[str, str]] = (
            Counter()
        )  # (model, kind) → calls the cache cannot answer

    def record(self, request: ChatRequest, identity: dict[str, Any]) -> ChatResponse | None:
        """Count the request; return the cached answer (None where the cache has none)."""
        key = request.cache_key(identity)
        hit = self.cache.get(key) if self.cache is not None else None
        with self._lock:
            if self.export and hit is None:
                self.pending.setdefault(key, (request, identity))
            self.plan.calls += 1
            model = f"{identity.get('backend')}/{identity.get('model')}"
            self.plan.by_model[model] = self.plan.by_model.get(model, 0) + 1
            if hit is not None or key in self._seen:
                self.plan.cached += 1
            else:
                self._new[speed.model_key(identity), speed.kind(request.choices)] += 1
            if hit is not None and hit.latency_s > 0:
                self._latency.append(hit.latency_s)
            self._seen.add(key)
        return hit

    def finish(self, backend: str) -> Plan:
        default = DEFAULT_SECONDS.get(backend, 5.0)
        here = {} if self._latency else {s: speed.measured(*s) for s in self._new}
        if self._latency:
            self.plan.seconds_per_call, self.plan.measured = (
                sum(self._latency) / len(self._latency),
                True,
            )
        elif any(v is not None for v in here.values()):  # this machine's speed per model and kind
            total = sum((here[s] or default) * n for s, n in self._new.items())
            self.plan.seconds_per_call, self.plan.measured = total / self.plan.new, True
            self.plan.source = "this machine's earlier runs"
        else:
            self.plan.seconds_per_call = default
        if self.plan.new:
            self.plan.load_seconds = LOAD_SECONDS.get(backend, 0.0)
        if self.cache is not None:
            self.cache.close()
        return self.plan


class PlanningBackend(ScriptedBackend):
    """Answers like the scripted backend, records every request under the real backend's identity."""

    def __init__(self, real, recorder: _Recorder) -> None:
        super().__init__(
            model=real.model,
            max_concurrency=real.max_concurrency,
            choice_probs=real.supports_choice_probs,
        )
        self.name = real.name
        self.supports_json_schema = real.supports_json_schema
        self.supports_hidden_states = real.supports_hidden_states
        self._identity, self._recorder = real.identity(), recorder

    def identity(self) -> dict[str, Any]:
        return self._identity

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        hit = self._recorder.record(request, self._identity)
        if not self._recorder.export:
            return super().complete(request, timeout)
        if hit is None:  # what depends on this answer waits for the next round
            raise BackendError("awaiting its batch answer", transient=False)
        return hit


_ACTIVE: list[_Recorder] = []


class PlanComplete(Exception):
    """Raised in a planning run where the job has recorded its last LLM call (:func:`done_calling`)."""


def active() -> _Recorder | None:
    return _ACTIVE[-1] if _ACTIVE else None


def done_calling() -> None:
    """A job calls this after its last LLM call: a planning run ends there, since what follows (fitting,
    statistics, tables) calls no model and would only cost the plan time — and would compute on
    stand-in answers (a stand-in's hidden states are not the real model's width)."""
    if active() is not None:
        raise PlanComplete


@contextmanager
def planning(cache_path: Path | None, export: bool = False) -> Iterator[_Recorder]:
    """While active, :func:`crseval.llm.make_client` hands out planning clients that record, not call."""
    recorder = _Recorder(cache_path, export)
    _ACTIVE.append(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.remove(recorder)
