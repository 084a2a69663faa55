"""The Backend protocol and the request/response types every backend speaks.

Only ``crseval.llm`` talks to models. A backend turns one :class:`ChatRequest` into one
:class:`ChatResponse` or raises :class:`~crseval.core.errors.BackendError` (``transient=True`` for
errors worth retrying: timeouts, 429, 5xx, dropped connections). Caching, concurrency, retries and
parsing live in :mod:`crseval.llm.client`, the same for every backend.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from crseval.core.signature import stable_json


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion. ``json_schema`` asks for schema-constrained JSON, ``grammar`` for a GBNF
    grammar (llama.cpp only). ``choices`` asks for the probability of each listed single-token answer
    at the first generated position (e.g. the digits of a rating scale). ``hidden_spans`` (with
    ``choices``) asks for the model's last-layer hidden states read while it prefilled the prompt: per
    (start, end) character span of the last user message, the states averaged over the span's tokens
    beside the span's last token's ((-1, -1): a span not in the message, answered with NaN)."""

    messages: tuple[Message, ...]
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    json_schema: dict[str, Any] | None = field(default=None, hash=False)
    grammar: str | None = None
    choices: tuple[str, ...] = ()
    hidden_spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def chat(cls, user: str, system: str | None = None, **kw: Any) -> "ChatRequest":
        msgs = ((Message("system", system),) if system else ()) + (Message("user", user),)
        return cls(msgs, **kw)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["messages"] = [asdict(m) for m in self.messages]
        if not self.hidden_spans:  # absent unless asked: the cache keys of every other request stay
            del d["hidden_spans"]
        return d

    def cache_key(self, backend_identity: dict[str, Any]) -> str:
        """Content address: backend identity (never secrets) + everything that shapes the output."""
        return hashlib.sha256(
            stable_json({"backend": backend_identity, "request": self.to_dict()}).encode()
        ).hexdigest()


@dataclass
class ChatResponse:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str = "stop"
    choice_probs: dict[str, float] | None = None
    hidden: str | None = None  # the requested hidden states, :func:`encode_states`
    cached: bool = False
    waited_s: float = 0.0  # of the call: time it queued inside the backend for a free model worker

    def to_dict(self) -> dict[str, Any]:
        """What the cache keeps: the answer, not how this call went (``cached``, ``waited_s``)."""
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in ("cached", "waited_s") and not (k == "hidden" and v is None)
        }

    @classmethod
    def of_choices(
        cls,
        probs: dict[str, float],
        prompt_tokens: int,
        latency_s: float,
        hidden: str | None = None,
    ) -> "ChatResponse":
        """A choices request's answer: the likeliest choice, its probabilities (and hidden states)."""
        return cls(max(probs, key=probs.get), prompt_tokens, 1, latency_s, "choices", probs, hidden)

    @classmethod
    def from_dict(cls, d: dict[str, Any], cached: bool = False) -> "ChatResponse":
        return cls(**{**d, "cached": cached})


def encode_states(states: np.ndarray) -> str:
    """Hidden states (spans × width, float32) as text that JSON, the cache and run records carry."""
    a = np.ascontiguousarray(states, dtype="<f4")
    return f"{a.shape[0]}x{a.shape[1]}:" + base64.b64encode(a.tobytes()).decode("ascii")


def decode_states(text: str) -> np.ndarray:
    shape, _, data = text.partition(":")
    rows, cols = (int(x) for x in shape.split("x"))
    return np.frombuffer(base64.b64decode(data), dtype="<f4").reshape(rows, cols).astype(float)


@runtime_checkable
class Backend(Protocol):
    """What a model backend must offer."""

    name: str
    model: str
    max_concurrency: int
    supports_choice_probs: bool
    supports_hidden_states: bool  # answers ``hidden_spans`` (the embedded llama.cpp model does)
    supports_json_schema: bool

    def identity(self) -> dict[str, Any]:
        """What identifies the model for caches and signatures (never an API key)."""
        ...

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse: ...

    def close(self) -> None: ...
