"""The only package that talks to models. ``make_client(LLMConfig(...))`` gives an :class:`LLMClient`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crseval.llm.base import Backend, ChatRequest, ChatResponse, Message
from crseval.llm.cache import ResponseCache
from crseval.llm.client import (
    CallResult,
    LLMClient,
    RatingResult,
    SchedulerConfig,
    StructuredResult,
)


class LLMConfig(BaseModel):
    """Which model to use and how to call it. API keys are never part of a config: set the
    environment variable named by ``api_key_env``."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["llamacpp", "openai", "scripted"] = "llamacpp"
    model: str | None = Field(
        None, description="llamacpp: embedded model name or .gguf path; openai: model name"
    )
    base_url: str = Field(
        "http://127.0.0.1:8000/v1",
        description="openai: the server's URL with http:// or https:// (Ollama: http://127.0.0.1:11434/v1)",
    )
    api_key_env: str | None = "OPENAI_API_KEY"
    json_mode: Literal["json_schema", "json_object", "none"] = "json_schema"
    logprobs: bool = True
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(256, ge=1, le=32768)
    seed: int = 0
    concurrency: int | None = Field(
        None, ge=1, le=256, description="requests in flight at most (default: the backend's)"
    )
    min_concurrency: int = Field(
        1, ge=1, le=256, description="the least it lowers to while the server answers 429/503"
    )
    price_input: float | None = Field(
        None, ge=0, description="USD per million prompt tokens (the usage table's cost)"
    )
    price_output: float | None = Field(None, ge=0, description="USD per million completion tokens")
    workers: int = Field(1, ge=1, le=64, description="llamacpp: model processes")
    prompt_cache: bool = Field(
        False,
        description="llamacpp: reuse the keys and values of the prompt prefix a request shares with the "
        "one before it. Faster (bench/embedded_prompt_cache.py), but an answer then depends on which request came "
        "before it (llama.cpp computes the reused prefix in other batches), so a run with concurrent "
        "requests is not reproducible; off, every answer depends on its request only",
    )
    slots: int = Field(
        1,
        ge=1,
        le=64,
        description="llamacpp (prebuilt engine): sequences one model process decodes together "
        "(llama.cpp's continuous batching). 1 answers deterministically (with prompt_cache off); more answer "
        "several requests at "
        "once — on 2 cores 1.1–1.2× faster generation, no faster ratings, and greedy answers that depend on "
        "which requests shared a batch",
    )
    engine: Literal["auto", "xllamacpp", "llama-cpp-python"] = Field(
        "auto",
        description="llamacpp: the prebuilt xllamacpp (auto's choice where installed) or the compiled "
        "llama-cpp-python (crseval[compiled]); both read hidden states",
    )
    n_ctx: int = Field(4096, ge=256)
    timeout_s: float = Field(300.0, gt=0)
    max_retries: int = Field(4, ge=0, le=20)

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v.startswith(("http://", "https://")):
            raise ValueError(f"a server URL starts with http:// or https:// (try 'http://{v}')")
        return v

    def signature(self) -> dict:
        return {
            "backend": self.backend,
            "model": self.model or "default",
            "T": self.temperature,
            "seed": self.seed,
        }


def make_backend(config: LLMConfig) -> Backend:
    if config.backend == "llamacpp":
        from crseval.llm.llamacpp import LlamaCppBackend

        return LlamaCppBackend(
            config.model,
            n_ctx=config.n_ctx,
            workers=config.workers,
            slots=config.slots,
            engine=config.engine,
            prompt_cache=config.prompt_cache,
        )
    if config.backend == "openai":
        from crseval.llm.openai_compat import OpenAIBackend

        return OpenAIBackend(
            config.model or "default",
            config.base_url,
            api_key_env=config.api_key_env,
            max_concurrency=config.concurrency or 4,
            json_mode=config.json_mode,
            logprobs=config.logprobs,
        )
    from crseval.llm.scripted import ScriptedBackend

    return ScriptedBackend(model=config.model or "scripted")


def make_client(
    config: LLMConfig,
    cache_path: str | Path | None = None,
    backend: Backend | None = None,
    role: str = "other",
) -> LLMClient:
    """A client for ``config``; responses are cached in ``cache_path`` (SQLite) when given. While a plan
    is being made (:mod:`crseval.llm.planning`) the client records its requests instead of sending them.
    ``role`` (crs, simulated user, judge, serendipity evaluator, …) names its row in the run's usage."""
    from crseval.llm import planning, usage

    recorder = planning.active()
    if recorder is not None:
        real = backend or make_backend(config)
        stand_in = planning.PlanningBackend(real, recorder)
        if backend is None:
            real.close()  # only its identity was needed (no model process was started)
        return LLMClient(stand_in, None, SchedulerConfig(max_retries=0))
    scheduler = SchedulerConfig(
        max_concurrency=config.concurrency,
        min_concurrency=config.min_concurrency,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
    )
    client = LLMClient(
        backend or make_backend(config),
        ResponseCache(cache_path) if cache_path else None,
        scheduler,
        seed=config.seed,
    )
    client.role, client.prices = role, (config.price_input, config.price_output)
    usage.register(client)
    return client


__all__ = [
    "LLMConfig",
    "LLMClient",
    "ChatRequest",
    "ChatResponse",
    "Message",
    "ResponseCache",
    "CallResult",
    "RatingResult",
    "StructuredResult",
    "SchedulerConfig",
    "make_backend",
    "make_client",
]
