"""A stand-in engine for the embedded backend's worker process: no model, the same process, protocol,
pool, timeouts and cancellation as the real engines (:mod:`crseval.llm.llamacpp_worker`). The last
message says what to do: ``sleep S`` answers after S seconds, ``fail`` answers with an error, anything
else is echoed at once."""

from __future__ import annotations

import os
import time
from typing import Any

PARALLEL = True  # answers its slots' requests at once, each on its own thread


def load(path: str, n_ctx: int, n_threads: int, chat_format: str | None, slots: int = 1) -> None:
    """Nothing to load."""


def complete(req: dict[str, Any]) -> dict[str, Any]:
    text = req["messages"][-1]["content"]
    if text == "fail":
        raise ValueError("asked to fail")
    if text.startswith("sleep "):
        time.sleep(float(text.split()[1]))
    return {
        "text": f"{os.getpid()}:{text}",
        "prompt_tokens": len(text.split()),
        "completion_tokens": 1,
        "latency_s": 0.0,
        "finish_reason": "stop",
        "choice_probs": None,
    }
