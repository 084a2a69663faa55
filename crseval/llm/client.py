"""The one way crseval talks to a model: cache → scheduler (concurrency, timeout, bounded retries
with exponential backoff) → backend, plus structured output with a repair path and ratings.

Failures are records, not crashes: :meth:`LLMClient.try_complete` returns a :class:`CallResult`
with the error and attempt count when retries are exhausted; :meth:`structured` and :meth:`rate`
return results whose ``error`` says why no value could be parsed — never a silent default.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Sequence

import jsonschema

from crseval.core.cancel import cancelled, check as check_cancelled
from crseval.core.errors import BackendError
from crseval.llm.base import Backend, ChatRequest, ChatResponse, Message
from crseval.llm.cache import ResponseCache
from crseval.llm import speed
from crseval.llm.limit import OVERLOADED, AdaptiveLimit


@dataclass
class CallStats:
    requests: int = 0  # requests that reached the backend (attempts, retries included)
    cache_hits: int = 0
    cache_misses: int = 0
    retries: int = 0
    failures: int = 0  # calls whose retries were exhausted or that failed permanently
    parse_failures: int = 0
    repairs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_seconds: float = 0.0  # wall time inside backend calls (queueing for the model included)
    wait_s: float = 0.0  # of which queued: for a free slot of the client or a free model worker

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CallResult:
    response: ChatResponse | None
    error: str | None = None
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.response is not None


@dataclass
class StructuredResult:
    value: Any | None
    raw: str | None
    error: str | None = None
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class RatingResult:
    """A rating on a numeric scale. ``method`` is 'expected' (probability-weighted over the scale's
    digits) or 'sampled' (one parsed digit); ``value`` is None with ``error`` set when unparseable."""

    value: float | None
    method: str
    probs: dict[str, float] | None = None
    raw: str | None = None
    error: str | None = None
    attempts: int = 0
    hidden: str | None = None  # the hidden states the request asked for (``hidden_spans``)


@dataclass
class SchedulerConfig:
    max_concurrency: int | None = None  # None → the backend's own limit
    min_concurrency: int = 1  # the least it lowers to when the server says it is overloaded
    timeout_s: float = 120.0
    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0


class LLMClient:
    def __init__(
        self,
        backend: Backend,
        cache: ResponseCache | None = None,
        scheduler: SchedulerConfig | None = None,
        seed: int = 0,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.config = scheduler or SchedulerConfig()
        self.concurrency = max(1, self.config.max_concurrency or backend.max_concurrency)
        self._slots = AdaptiveLimit(self.concurrency, self.config.min_concurrency)
        self._lock = threading.Lock()
        self._jitter = random.Random(seed)
        self.stats = CallStats()
        # (start, end) of the model working for each call
        self.intervals: list[tuple[float, float]] = []
        self.role = "other"  # what it answers for, in the run's usage table (make_client sets it)
        # seconds of each call its model answered, by kind: this machine's speed record (llm/speed.py)
        self._speeds: dict[str, list[float]] = {}
        self.prices: tuple[float | None, float | None] = (None, None)

    # ---- plain completions -------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        return self.backend.identity()

    def complete(self, request: ChatRequest) -> ChatResponse:
        result = self.try_complete(request)
        if result.response is None:
            raise BackendError(
                f"LLM call failed after {result.attempts} attempt(s): {result.error}"
            )
        return result.response

    def try_complete(
        self, request: ChatRequest, accept: Callable[[ChatResponse], bool] | None = None
    ) -> CallResult:
        """One call through cache and scheduler. A response that ``accept`` rejects (empty, unparseable)
        is returned but not cached, so asking again really asks the model again."""
        key = request.cache_key(self.backend.identity()) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self._count(cache_hits=1)
                return CallResult(hit, attempts=0)
            self._count(cache_misses=1)
        attempts, last_error = 0, "no attempt made"
        for attempt in range(self.config.max_retries + 1):  # bounded: 1 try + max_retries
            attempts = attempt + 1
            check_cancelled()  # an interrupted run sends nothing more (and records nothing as failed)
            asked, response = time.perf_counter(), None
            try:
                with self._slots:
                    t0 = time.perf_counter()
                    try:
                        response = self.backend.complete(request, self.config.timeout_s)
                    finally:
                        self._timed(asked, t0, response.waited_s if response else 0.0)
            except BackendError as e:
                check_cancelled()  # the failure came from aborting the request: not a result
                last_error = str(e)
                if e.status in OVERLOADED:
                    self._slots.overloaded()
                if not e.transient or attempt == self.config.max_retries:
                    break
                self._count(retries=1)
                time.sleep(self._backoff(attempt, e.retry_after))
                continue
            self._slots.succeeded()
            self._count(
                prompt_tokens=response.prompt_tokens, completion_tokens=response.completion_tokens
            )
            with self._lock:
                self._speeds.setdefault(speed.kind(request.choices), []).append(response.latency_s)
            if key is not None and (accept is None or accept(response)):
                self.cache.put(key, response)
            return CallResult(response, attempts=attempts)
        self._count(failures=1)
        return CallResult(None, last_error, attempts)

    def map(
        self,
        items: Sequence[Any],
        fn: Callable[[Any], Any] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[Any]:
        """Run ``fn`` (default :meth:`try_complete`) over items with as many threads as the backend
        allows in flight (the semaphore still bounds real requests); results come back in order."""
        fn = fn or self.try_complete
        out: list[Any] = [None] * len(items)
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {pool.submit(fn, r): i for i, r in enumerate(items)}
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if progress:
                    progress(1)
        finally:  # interrupted: queued work is dropped, not waited for
            pool.shutdown(wait=not cancelled(), cancel_futures=True)
        return out

    # ---- structured output -------------------------------------------------------------------
    def structured(
        self, request: ChatRequest, schema: dict[str, Any], max_repairs: int = 1
    ) -> StructuredResult:
        """JSON matching ``schema``: constrained decoding where the backend supports it, then up to
        ``max_repairs`` re-asks quoting the validation error, then a recorded parse failure."""
        req = replace(request, json_schema=schema if self.backend.supports_json_schema else None)
        attempts, raw, error = 0, None, "no attempt made"
        for repair in range(max_repairs + 1):
            result = self.try_complete(req, accept=lambda r: _valid_json(r.text, schema))
            attempts += result.attempts
            if result.response is None:
                return StructuredResult(None, raw, f"backend: {result.error}", attempts)
            raw = result.response.text
            try:
                value = parse_json(raw)
                jsonschema.validate(value, schema)
                return StructuredResult(value, raw, None, attempts)
            except (ValueError, jsonschema.ValidationError) as e:
                error = e.message if isinstance(e, jsonschema.ValidationError) else str(e)
            if repair < max_repairs:
                self._count(repairs=1)
                req = replace(
                    req,
                    messages=req.messages
                    + (
                        Message("assistant", raw[:2000]),
                        Message(
                            "user",
                            f"That answer was not valid: {error}. Reply with only a JSON object "
                            f"that matches the requested format.",
                        ),
                    ),
                )
        self._count(parse_failures=1)
        return StructuredResult(None, raw, f"unparseable output: {error}", attempts)

    # ---- ratings -----------------------------------------------------------------------------
    def rate(
        self, request: ChatRequest, scale: tuple[int, int] = (1, 5), max_repairs: int = 2
    ) -> RatingResult:
        """A rating on an integer scale. Probability-weighted expected value over the scale's digits
        where the backend exposes next-token probabilities, else one sampled, validated digit. A request
        for hidden states is answered by the probability path only (the states come from its prefill)."""
        lo, hi = scale
        digits = tuple(str(d) for d in range(lo, hi + 1))
        probs_path = self.backend.supports_choice_probs and all(len(d) == 1 for d in digits)
        if request.hidden_spans and not (probs_path and self.backend.supports_hidden_states):
            return RatingResult(
                None, "expected", error=f"{self.backend.name} gives no hidden states"
            )
        attempts = 0
        if probs_path:
            result, attempts = self._expected(request, digits, max_repairs)
            if result is not None:
                return result
            # the server never gave probabilities: fall through to a sampled digit
        return self._sampled(request, scale, max_repairs, attempts)

    def _expected(
        self, request: ChatRequest, digits: tuple[str, ...], max_repairs: int
    ) -> tuple[RatingResult | None, int]:
        """(the probability-weighted rating, or None where the backend never gave probabilities over the
        digits and no hidden states were asked for; the attempts made)."""
        attempts = 0
        choice_req = replace(request, choices=digits, max_tokens=1)
        for repair in range(max_repairs + 1):  # an empty or probability-less answer is asked again
            res = self.try_complete(
                choice_req,
                accept=lambda r: (
                    _mass(r.choice_probs, digits) > 0
                    and (r.hidden is not None or not request.hidden_spans)
                ),
            )
            attempts += res.attempts
            if res.response is None:
                return RatingResult(
                    None, "expected", error=f"backend: {res.error}", attempts=attempts
                ), attempts
            total = _mass(res.response.choice_probs, digits)
            if total > 0:
                norm = {d: res.response.choice_probs.get(d, 0.0) / total for d in digits}
                return RatingResult(
                    sum(int(d) * p for d, p in norm.items()),
                    "expected",
                    norm,
                    res.response.text,
                    None,
                    attempts,
                    res.response.hidden,
                ), attempts
            if repair < max_repairs:
                self._count(repairs=1)
        if request.hidden_spans:
            return RatingResult(
                None, "expected", error="no probabilities and states", attempts=attempts
            ), attempts
        return None, attempts

    def _sampled(
        self, request: ChatRequest, scale: tuple[int, int], max_repairs: int, attempts: int
    ) -> RatingResult:
        """One sampled digit, validated (constrained by a grammar where the scale is single digits), asked
        again with the wrong answer shown while repairs are left."""
        lo, hi = scale
        grammar = f"root ::= [{lo}-{hi}]" if hi < 10 else None
        req = replace(
            request,
            grammar=grammar,
            max_tokens=max(request.max_tokens, 4) if grammar is None else 2,
        )
        raw = None
        for repair in range(max_repairs + 1):
            res = self.try_complete(req, accept=lambda r: parse_rating(r.text, scale) is not None)
            attempts += res.attempts
            if res.response is None:
                return RatingResult(
                    None, "sampled", error=f"backend: {res.error}", attempts=attempts
                )
            raw = res.response.text
            value = parse_rating(raw, scale)
            if value is not None:
                return RatingResult(float(value), "sampled", None, raw, None, attempts)
            if repair < max_repairs:
                self._count(repairs=1)
                req = replace(
                    req,
                    messages=req.messages
                    + (
                        Message("assistant", raw[:500]),
                        Message(
                            "user",
                            f"Answer with a single whole number from {lo} to {hi} and nothing else.",
                        ),
                    ),
                )
        self._count(parse_failures=1)
        return RatingResult(
            None,
            "sampled",
            None,
            raw,
            f"no rating in {lo}–{hi} found in output {raw[:80]!r}",
            attempts,
        )

    def ask(self, request: ChatRequest, rate: bool = False) -> dict[str, Any]:
        """One request answered for a person: the reply (or a 1–5 rating), cache hit or miss, tokens and
        latency (``crseval llm chat``)."""
        t0 = time.perf_counter()
        hits = self.stats.cache_hits
        if rate:
            res = self.rate(request)
            if res.value is None:
                raise BackendError(f"no rating: {res.error}")
            text, extra = f"{res.value:.3f}", {"method": res.method, "probs": res.probs}
        else:
            r = self.complete(request)
            text, extra = (
                r.text,
                {"prompt_tokens": r.prompt_tokens, "completion_tokens": r.completion_tokens},
            )
        return {
            "reply": text,
            "cache": "hit" if self.stats.cache_hits > hits else "miss",
            **extra,
            "latency_s": round(time.perf_counter() - t0, 3),
            "backend": self.backend.name,
            "model": self.identity().get("model"),
        }

    # ---- bookkeeping -------------------------------------------------------------------------
    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        base = min(self.config.backoff_max_s, self.config.backoff_base_s * (2**attempt))
        with self._lock:
            delay = base * (0.5 + self._jitter.random() / 2)
        return min(self.config.backoff_max_s, max(delay, retry_after or 0.0))

    def _timed(self, asked: float, started: float, queued: float) -> None:
        """Count one backend call asked at ``asked``, sent at ``started``, answered now, which queued
        ``queued`` seconds inside the backend: the model worked from ``started + queued`` to now."""
        ended = time.perf_counter()
        with self._lock:
            self.intervals.append((min(started + queued, ended), ended))
        self._count(requests=1, llm_seconds=ended - started, wait_s=started - asked + queued)

    def _count(self, **deltas: float) -> None:
        with self._lock:
            for k, v in deltas.items():
                setattr(self.stats, k, getattr(self.stats, k) + v)

    def close(self) -> None:
        if getattr(self.backend, "measures_speed", True):  # a stand-in's speed is no model's
            with self._lock:
                speeds, self._speeds = self._speeds, {}
            speed.record(self.backend.identity(), speeds)
        self.backend.close()
        if self.cache is not None:
            self.cache.close()


def _mass(probs: dict[str, float] | None, digits: tuple[str, ...]) -> float:
    return sum(probs.get(d, 0.0) for d in digits) if probs else 0.0


def _valid_json(text: str, schema: dict[str, Any]) -> bool:
    try:
        jsonschema.validate(parse_json(text), schema)
        return True
    except (ValueError, jsonschema.ValidationError):
        return False


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def parse_json(text: str) -> Any:
    """The JSON value in a model's answer: plain, fenced in ```json, or the first {...} block."""
    if text is None or not text.strip():
        raise ValueError("empty output")
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for c in candidates:
        try:
            return json.loads(c)
        except json.JSONDecodeError:
            continue
    raise ValueError(f"no JSON object in output {text[:80]!r}")


def parse_rating(text: str | None, scale: tuple[int, int]) -> int | None:
    """The first whole number in ``text`` if it lies on the scale; a JSON {"rating": n} also works."""
    if not text:
        return None
    lo, hi = scale
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    if not m:
        return None
    value = float(m.group(0))
    if value != int(value) or not lo <= value <= hi:
        return None
    return int(value)
