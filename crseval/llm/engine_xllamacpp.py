"""The prebuilt engine: llama.cpp through ``xllamacpp`` (a registry wheel; no compiler needed).

Loaded inside the model's worker process (:mod:`crseval.llm.llamacpp_worker`). ``xllamacpp`` runs
llama.cpp's own server in process (no port is used by crseval: requests go through
``handle_chat_completions``), so the chat template is the GGUF's own (Jinja), JSON schemas and GBNF
grammars are compiled by llama.cpp, and the prompt prefix shared with the previous request is reused.

``choices`` requests read the top next-token log-probabilities that llama.cpp computes from the raw
logits of the last prompt position (a softmax over the whole vocabulary, before any sampler): a choice
outside the top ``TOP_K`` gets probability 0. A request for hidden states (``hidden_spans``) is answered
by llama.cpp's C API in the same wheel (:class:`crseval.llm.llama_capi.StateReader`: its own context on the
same memory-mapped model, loaded on the first such request), which reads the states and the next-token
distribution from one prefill, as the compiled engine does.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from crseval.llm.base import ChatResponse

TOP_K = (
    20  # next-token log-probabilities read for a choices request (digits hold ≥ 99.9 % of the mass)
)

REUSE_PREFIX = (
    False  # reuse a shared prompt prefix's cache (the worker sets it: LLMConfig.prompt_cache)
)
PARALLEL = True  # llama.cpp's server decodes several sequences together (the worker's "slots")

_SERVER: Any = None
_STATES: Any = None  # the StateReader, loaded on the first request for hidden states
_STATES_LOCK = threading.Lock()  # one prefill at a time on its context
_LOADED: dict[str, Any] = {}


def server_params(
    path: str, n_ctx: int, n_threads: int, chat_format: str | None = None, slots: int = 1
) -> Any:
    """llama.cpp's server parameters for the embedded model: ``slots`` sequences decoded together, each
    with a context of ``n_ctx`` tokens, the GGUF's own chat template (or a built-in one by name), seed 0,
    no warm-up, no per-request log lines."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx * slots
    params.n_batch = 512
    params.n_parallel = slots
    params.kv_unified = False  # each slot its own n_ctx, as one sequence had before
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.use_jinja = True
    params.warmup = False
    params.verbosity = -1  # llama.cpp's per-request timings would fill the worker's log
    params.sampling.seed = 0
    if chat_format:
        params.chat_template = chat_format  # one of llama.cpp's built-in template names
    return params


def load(path: str, n_ctx: int, n_threads: int, chat_format: str | None, slots: int = 1) -> None:
    global _SERVER
    import xllamacpp

    _SERVER = xllamacpp.Server(server_params(path, n_ctx, n_threads, chat_format, slots))
    _LOADED.update(path=path, n_ctx=n_ctx, n_threads=n_threads, chat_format=chat_format)


def states() -> Any:
    """The StateReader (callers hold :data:`_STATES_LOCK`)."""
    global _STATES
    if _STATES is None:
        from crseval.llm.llama_capi import StateReader

        if _LOADED["chat_format"]:
            raise ValueError("hidden states need the GGUF's own chat template (no chat_format)")
        _STATES = StateReader(
            _LOADED["path"], _LOADED["n_ctx"], _LOADED["n_threads"], reuse_prefix=REUSE_PREFIX
        )
    return _STATES


def _ask(body: dict[str, Any]) -> dict[str, Any]:
    out = _SERVER.handle_chat_completions(body | {"cache_prompt": REUSE_PREFIX})
    if "error" in out:
        error = out["error"]
        raise ValueError(error.get("message", error) if isinstance(error, dict) else error)
    return out


def _usage(out: dict[str, Any]) -> tuple[int, int]:
    usage = out.get("usage") or {}
    return usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)


def choice_probs(
    messages: list[dict[str, str]], choices: list[str]
) -> tuple[dict[str, float], int]:
    """Next-token probabilities of single-token ``choices`` after the chat prompt (with
    :data:`REUSE_PREFIX`, the prompt's KV cache is reused from the previous request where their prefixes
    agree)."""
    out = _ask(
        {
            "messages": messages,
            "max_tokens": 1,
            "temperature": 0.0,
            "logprobs": True,
            "top_logprobs": max(TOP_K, len(choices)),
        }
    )
    top = out["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
    seen = {t["token"]: math.exp(t["logprob"]) for t in top}
    return {c: seen.get(c, 0.0) for c in choices}, _usage(out)[0]


def complete(req: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    messages = req["messages"]
    if req.get("hidden_spans"):
        if not req["choices"]:
            raise ValueError("hidden states are read with a choices request")
        with _STATES_LOCK:
            probs, n_prompt, hidden = states().choice_probs(
                messages, req["choices"], req["hidden_spans"]
            )
        return ChatResponse.of_choices(probs, n_prompt, time.perf_counter() - t0, hidden).to_dict()
    if req["choices"]:
        probs, n_prompt = choice_probs(messages, req["choices"])
        return ChatResponse.of_choices(probs, n_prompt, time.perf_counter() - t0).to_dict()
    body: dict[str, Any] = {
        "messages": messages,
        "temperature": req["temperature"],
        "max_tokens": req["max_tokens"],
    }
    if req["stop"]:
        body["stop"] = list(req["stop"])
    if req["seed"] is not None:
        body["seed"] = req["seed"]
    if req["json_schema"] is not None:
        body["json_schema"] = req["json_schema"]
    elif req["grammar"]:
        body["grammar"] = req["grammar"]
    out = _ask(body)
    choice = out["choices"][0]
    return ChatResponse(
        choice["message"].get("content") or "",
        *_usage(out),
        time.perf_counter() - t0,
        choice.get("finish_reason") or "stop",
    ).to_dict()
