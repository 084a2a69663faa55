"""A deterministic backend for tests and plumbing: replies come from a function, a list or rules.

With no script it still behaves like a model: schema requests get a minimal valid JSON object,
``choices`` requests get probabilities derived from a hash of the prompt (stable across runs) and, where
asked, pseudo hidden states (a hashed bag of each span's words), other requests get a short reply that
quotes the last user message.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any, Callable, Iterable

import numpy as np

from crseval.core.errors import BackendError
from crseval.llm.base import ChatRequest, ChatResponse, encode_states

Responder = Callable[[ChatRequest], "str | ChatResponse | Exception"]


def _digest(request: ChatRequest) -> int:
    text = "\n".join(f"{m.role}:{m.content}" for m in request.messages)
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def _bag(text: str, span: tuple[int, int], width: int = 16) -> np.ndarray:
    """Pseudo hidden states of a span: its words hashed into ``width`` counts, and its log length."""
    if span[0] < 0:
        return np.full(width + 1, np.nan)
    v = np.zeros(width + 1)
    words = text[span[0] : span[1]].lower().split()
    for w in words:
        v[int(hashlib.sha256(w.encode()).hexdigest()[:8], 16) % width] += 1
    v[width] = np.log1p(len(words))
    return v


def example_for_schema(schema: dict[str, Any]) -> Any:
    """A minimal value that satisfies a (simple) JSON schema."""
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    if t == "object":
        props = schema.get("properties", {})
        return {
            k: example_for_schema(v) for k, v in props.items() if k in schema.get("required", props)
        }
    if t == "array":
        return [example_for_schema(schema.get("items", {}))] * schema.get("minItems", 0)
    if t == "integer":
        return int(schema.get("minimum", 0))
    if t == "number":
        return float(schema.get("minimum", 0))
    if t == "boolean":
        return False
    return "x" * schema.get("minLength", 1)


class ScriptedBackend:
    name = "scripted"
    supports_json_schema = True
    supports_hidden_states = True  # pseudo-states: a hashed bag of each span's words
    measures_speed = False  # its answers' seconds say nothing of a model's (crseval.llm.speed)

    def __init__(
        self,
        script: Responder | Iterable[Any] | None = None,
        *,
        model: str = "scripted",
        latency_s: float = 0.0,
        max_concurrency: int = 8,
        choice_probs: bool = True,
    ) -> None:
        self.model = model
        self.latency_s = latency_s
        self.max_concurrency = max_concurrency
        self.supports_choice_probs = choice_probs
        self.calls: list[ChatRequest] = []
        self._lock = threading.Lock()
        if script is None or callable(script):
            self._respond: Responder = script or self.default
        else:
            queue = list(script)

            def pop(_: ChatRequest) -> Any:
                with self._lock:
                    if not queue:
                        raise BackendError("scripted backend ran out of replies")
                    return queue.pop(0)

            self._respond = pop

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    def default(self, request: ChatRequest) -> str | ChatResponse:
        h = _digest(request)
        if request.choices:
            weights = [((h >> (4 * i)) & 0xF) + 1 for i in range(len(request.choices))]
            total = sum(weights)
            probs = {c: w / total for c, w in zip(request.choices, weights)}
            hidden = None
            if request.hidden_spans:
                hidden = encode_states(
                    np.array([_bag(request.messages[-1].content, s) for s in request.hidden_spans])
                )
            return ChatResponse(max(probs, key=probs.get), choice_probs=probs, hidden=hidden)
        if request.json_schema:
            return json.dumps(example_for_schema(request.json_schema))
        if request.grammar and request.grammar.startswith("root ::= ["):
            lo, hi = request.grammar[len("root ::= [") : -1].split("-")
            return str(int(lo) + h % (int(hi) - int(lo) + 1))
        last = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        return f"Scripted reply #{h % 1000} to: {last[:60]}"

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        with self._lock:
            self.calls.append(request)
        t0 = time.perf_counter()
        if self.latency_s:
            time.sleep(min(self.latency_s, timeout))
        out = self._respond(request)
        if isinstance(out, Exception):
            raise out
        response = out if isinstance(out, ChatResponse) else ChatResponse(str(out))
        prompt_tokens = sum(len(m.content.split()) for m in request.messages)
        response.prompt_tokens = response.prompt_tokens or prompt_tokens
        response.completion_tokens = response.completion_tokens or len(response.text.split())
        response.latency_s = time.perf_counter() - t0
        return response

    def close(self) -> None:
        pass
