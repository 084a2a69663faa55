"""The compiled engine: llama.cpp through ``llama-cpp-python`` (built from source; ``crseval[compiled]``).

Loaded inside the model's worker process (:mod:`crseval.llm.llamacpp_worker`). Besides what the
prebuilt engine does, it reads the model's hidden states while it prefills a rating prompt
(``hidden_spans``), which needs the low-level API only this binding exposes.
"""

from __future__ import annotations

import time
from typing import Any

from crseval.llm.base import ChatResponse
from crseval.llm.spans import span_rows, span_tokens

REUSE_PREFIX = (
    False  # reuse a shared prompt prefix's cache (the worker sets it: LLMConfig.prompt_cache)
)
_LLM: Any = None
_FORMATTER: Any = None


def load(path: str, n_ctx: int, n_threads: int, chat_format: str | None) -> None:
    global _LLM, _FORMATTER
    from llama_cpp import LLAMA_POOLING_TYPE_NONE, Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    _LLM = Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_batch=512,
        verbose=False,
        chat_format=chat_format,
        seed=0,
        pooling_type=LLAMA_POOLING_TYPE_NONE,  # per-token states when a request asks for them
    )
    template = _LLM.metadata.get("tokenizer.chat_template")
    if template and chat_format is None:

        def text(tok: int) -> str:
            return _LLM._model.token_get_text(tok) if tok >= 0 else ""

        _FORMATTER = Jinja2ChatFormatter(
            template=template, eos_token=text(_LLM.token_eos()), bos_token=text(_LLM.token_bos())
        )


def choice_probs(
    messages: list[dict[str, str]], choices: list[str], hidden_spans: list[list[int]] = ()
) -> tuple[dict[str, float], int, str | None]:
    """Next-token probabilities of single-token ``choices`` after the chat prompt: the prompt is
    evaluated once (with :data:`REUSE_PREFIX`, reusing the KV cache of the prefix shared with the
    previous prompt) and the
    last position's logits are soft-maxed — no sampling, no per-position logits. With
    ``hidden_spans`` the same prefill also yields those spans' hidden states (:func:`_prefill`)."""
    import numpy as np

    llm = _LLM
    if _FORMATTER is None:
        raise ValueError("this model has no chat template; choice probabilities need one")
    prompt = _FORMATTER(messages=messages).prompt
    tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    if len(tokens) >= llm.n_ctx():
        raise ValueError(f"prompt of {len(tokens)} tokens exceeds the context of {llm.n_ctx()}")
    prev = llm.input_ids[: llm.n_tokens].tolist() if REUSE_PREFIX else []
    common = 0
    for a, b in zip(prev, tokens):
        if a != b:
            break
        common += 1
    hidden = None
    if hidden_spans:
        logits, hidden = _prefill(tokens, common, prompt, messages[-1]["content"], hidden_spans)
    else:
        llm.n_tokens = min(common, len(tokens) - 1)
        llm.eval(tokens[llm.n_tokens :])
        # without logits_all, llama.cpp keeps only the last position's logits in the context
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
    logits = logits.astype(np.float64)
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    out = {}
    for c in choices:
        ids = llm.tokenize(c.encode("utf-8"), add_bos=False, special=False)
        out[c] = float(probs[ids[0]]) if ids else 0.0
    return out, len(tokens), hidden


def _prefill(tokens, common: int, prompt: str, content: str, spans: list[list[int]]):
    """(last position's logits, the spans' last-layer states as :func:`crseval.llm.spans.span_rows`):
    the prompt is evaluated with llama.cpp's embedding output switched on for the spans' positions only
    (the KV cache is reused up to the first span; one pass gives both)."""
    import llama_cpp
    import numpy as np

    llm, ctx = _LLM, _LLM._ctx.ctx

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    ranges = span_tokens(prompt, content, spans, count)
    wanted = {t for r in ranges if r for t in range(*r)}
    start = min([common, len(tokens) - 1, *wanted])
    llm._ctx.kv_cache_seq_rm(-1, start, -1)
    width, states = llm.n_embd(), {}
    llama_cpp.llama_set_embeddings(ctx, True)
    try:
        for i in range(start, len(tokens), llm.n_batch):
            chunk = tokens[i : i + llm.n_batch]
            llm._batch.set_batch(chunk, i, False)  # the chunk's last position is always an output
            for j in range(len(chunk)):
                llm._batch.batch.logits[j] = llm._batch.batch.logits[j] or (i + j) in wanted
            llm.n_tokens = i  # the cache holds the tokens before the chunk (a failure leaves it so)
            llm._ctx.decode(llm._batch)
            for j in range(len(chunk)):
                if i + j in wanted:
                    row = llama_cpp.llama_get_embeddings_ith(ctx, j)
                    states[i + j] = np.ctypeslib.as_array(row, shape=(width,)).copy()
            llm.input_ids[i : i + len(chunk)] = chunk
            llm.n_tokens = i + len(chunk)
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(ctx, -1), shape=(llm.n_vocab(),)
        ).copy()
    finally:
        llama_cpp.llama_set_embeddings(ctx, False)
    return logits, span_rows(ranges, states, width)


def complete(req: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    messages = req["messages"]
    if req["choices"]:
        probs, n_prompt, hidden = choice_probs(
            messages, req["choices"], req.get("hidden_spans", ())
        )
        return ChatResponse.of_choices(probs, n_prompt, time.perf_counter() - t0, hidden).to_dict()
    kwargs: dict[str, Any] = {
        "messages": messages,
        "temperature": req["temperature"],
        "max_tokens": req["max_tokens"],
        "stop": req["stop"] or None,
    }
    if req["seed"] is not None:
        kwargs["seed"] = req["seed"]
    if req["json_schema"] is not None:
        kwargs["response_format"] = {"type": "json_object", "schema": req["json_schema"]}
    elif req["grammar"]:
        from llama_cpp import LlamaGrammar

        kwargs["grammar"] = LlamaGrammar.from_string(req["grammar"], verbose=False)
    if not REUSE_PREFIX:
        _LLM.reset()  # llama-cpp-python reuses the prefix its last prompt shares with this one
    out = _LLM.create_chat_completion(**kwargs)
    usage = out.get("usage") or {}
    choice = out["choices"][0]
    return ChatResponse(
        choice["message"].get("content") or "",
        usage.get("prompt_tokens", 0),
        usage.get("completion_tokens", 0),
        time.perf_counter() - t0,
        choice.get("finish_reason") or "stop",
    ).to_dict()
