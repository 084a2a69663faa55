"""Any OpenAI-compatible chat server: OpenAI, Ollama, vLLM, llama.cpp server, LM Studio …

The API key is read from an environment variable at call time (``api_key_env``) and is never part
of the backend identity, so it cannot reach caches, signatures, logs or reports.
Transient failures (timeouts, dropped connections, 429, 5xx, a garbled body) raise
``BackendError(transient=True)`` so the client retries them with backoff.
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any, Literal

import httpx

from crseval.core.cancel import forget, on_cancel

from crseval.core.errors import BackendError
from crseval.llm.base import ChatRequest, ChatResponse

TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = "http://127.0.0.1:8000/v1",
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        max_concurrency: int = 4,
        json_mode: Literal["json_schema", "json_object", "none"] = "json_schema",
        logprobs: bool = True,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.max_concurrency = max_concurrency
        self.json_mode = json_mode
        self.supports_json_schema = json_mode != "none"
        self.supports_choice_probs = logprobs
        self.supports_hidden_states = False  # a server returns tokens, not activations
        self._http = httpx.Client(limits=httpx.Limits(max_connections=max_concurrency * 2))
        on_cancel(
            self, self._http.close
        )  # a cancelled run drops its connections (requests in flight fail)

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "base_url": self.base_url}

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        return {"Authorization": f"Bearer {key}"} if key else {}

    def payload(self, request: ChatRequest) -> dict[str, Any]:
        return request_body(request, self.model, self.json_mode)

    def complete(self, request: ChatRequest, timeout: float) -> ChatResponse:
        t0 = time.perf_counter()
        try:
            r = self._http.post(
                f"{self.base_url}/chat/completions",
                json=self.payload(request),
                headers=self._headers(),
                timeout=timeout,
            )
        except httpx.TimeoutException:
            raise BackendError(f"request timed out after {timeout:g} s", transient=True) from None
        except httpx.TransportError as e:
            raise BackendError(
                f"cannot reach {self.base_url} ({type(e).__name__}: {e})",
                transient=True,
                fix="start the server or fix --base-url (the URL ends in /v1 for OpenAI-compatible "
                "servers: Ollama http://127.0.0.1:11434/v1, vLLM and llama.cpp http://HOST:8000/v1)",
            ) from None
        if r.status_code != 200:
            retry_after = _retry_after(r.headers.get("retry-after"))
            raise BackendError(
                f"server answered HTTP {r.status_code}: {r.text[:200]}",
                transient=r.status_code in TRANSIENT_STATUS,
                status=r.status_code,
                retry_after=retry_after,
            )
        try:
            return response_from(r.json(), request.choices, time.perf_counter() - t0)
        except (json.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(
                f"malformed response body: {r.text[:120]!r}", transient=True
            ) from None

    def close(self) -> None:
        forget(self)
        self._http.close()


def request_body(
    request: ChatRequest, model: str, json_mode: str = "json_schema"
) -> dict[str, Any]:
    """The chat-completions body of ``request`` (also each line's ``body`` in a batch file)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
    }
    if request.seed is not None:
        body["seed"] = request.seed
    if request.stop:
        body["stop"] = list(request.stop)
    if request.json_schema is not None and json_mode == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "response", "schema": request.json_schema},
        }
    elif request.json_schema is not None and json_mode == "json_object":
        body["response_format"] = {"type": "json_object", "schema": request.json_schema}
    if request.choices:
        body.update(max_tokens=1, logprobs=True, top_logprobs=20)
    return body


def response_from(
    data: dict[str, Any], choices: tuple[str, ...] = (), latency_s: float = 0.0
) -> ChatResponse:
    """A chat-completions response body as a :class:`ChatResponse` (raises KeyError, IndexError,
    TypeError or AttributeError on a body of another shape)."""
    choice = data["choices"][0]
    text = choice["message"].get("content") or ""
    usage = data.get("usage") or {}
    return ChatResponse(
        text,
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        latency_s,
        choice.get("finish_reason") or "stop",
        _choice_probs(choice, tuple(choices)) if choices else None,
    )


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _choice_probs(choice: dict[str, Any], choices: tuple[str, ...]) -> dict[str, float] | None:
    """Probabilities of the requested single-token answers from the first token's top_logprobs."""
    try:
        top = choice["logprobs"]["content"][0]["top_logprobs"]
    except (KeyError, IndexError, TypeError):
        return None
    probs = {c: 0.0 for c in choices}
    for entry in top:
        token = str(entry.get("token", "")).strip()
        if token in probs:
            probs[token] += math.exp(float(entry["logprob"]))
    return probs if sum(probs.values()) > 0 else None
