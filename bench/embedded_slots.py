"""The embedded model's parallel slots (``llm.slots``): the prebuilt engine's worker answering several
requests at once (llama.cpp's continuous batching) against the named peer, the same worker answering one
request at a time (the client's concurrency 1: the default, ``slots = 1``), measured in the same run on the
same loaded model.

1. Generation: greedy CRS-like answers (temperature 0, 64 tokens): seconds, tokens per second, the ratio
   to one at a time, and how many answers are the same text as the peer's.
2. Ratings: the judge's rubric on every bundled sample dialogue (probability-weighted, the judge's path):
   seconds, the ratio, and the largest difference of an expected rating from the peer's.

Nothing is cached: every request reaches the model.

usage: python bench/embedded_slots.py [--slots 4] [--repeat 2]
"""

from __future__ import annotations

import argparse
import time

import _record as record
from embedded_engines import PROMPTS

from crseval.data import load_dataset
from crseval.judge.rubric import RUBRICS, judge_request
from crseval.llm import ChatRequest, LLMClient, SchedulerConfig
from crseval.llm.llamacpp import LlamaCppBackend


def timed(backend: LlamaCppBackend, concurrency: int, requests: list[ChatRequest], rate: bool):
    """(seconds, answers) of a client at ``concurrency`` on the shared worker (no cache)."""
    client = LLMClient(backend, None, SchedulerConfig(max_concurrency=concurrency))
    t0 = time.perf_counter()
    out = client.map(requests, client.rate if rate else client.complete)
    return time.perf_counter() - t0, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--slots", type=int, default=4, help="sequences the worker decodes together")
    ap.add_argument("--repeat", type=int, default=2, help="the generation prompts, this many times")
    args = ap.parse_args()
    backend = LlamaCppBackend(slots=args.slots)
    slots = backend.max_concurrency
    print(f"engine {backend.engine}, {slots} slots in one worker")
    backend.complete(ChatRequest.chat("Say yes.", max_tokens=2), 300)  # loaded
    prompts = [
        ChatRequest.chat(f"{p} ({i})", max_tokens=64, temperature=0.0)
        for i in range(args.repeat)
        for p in PROMPTS
    ]
    ratings = [
        judge_request(d, RUBRICS[r])[0]
        for d in load_dataset("sample").dialogues
        for r in ("overall", "relevance")
    ]
    rows = []
    gen_one, one = timed(backend, 1, prompts, False)
    gen_all, many = timed(backend, slots, prompts, False)
    tokens = sum(r.completion_tokens for r in many)
    rows.append(
        {
            "work": f"generation: {len(prompts)} greedy answers of ≤ 64 tokens",
            "one at a time s": round(gen_one, 1),
            f"{slots} slots s": round(gen_all, 1),
            "speed-up": round(gen_one / gen_all, 2),
            "tokens/s (slots)": round(tokens / gen_all, 1),
            "same as one at a time": f"{sum(a.text == b.text for a, b in zip(one, many))}/{len(one)}",
        }
    )
    rate_one, one = timed(backend, 1, ratings, True)
    rate_all, many = timed(backend, slots, ratings, True)
    rows.append(
        {
            "work": f"ratings: {len(ratings)} rubric questions on the sample dialogues",
            "one at a time s": round(rate_one, 1),
            f"{slots} slots s": round(rate_all, 1),
            "speed-up": round(rate_one / rate_all, 2),
            "tokens/s (slots)": "",
            "same as one at a time": f"largest rating difference "
            f"{max(abs(a.value - b.value) for a, b in zip(one, many)):.3f}",
        }
    )
    backend.close()
    for row in rows:
        print(row)
    record.table(
        "parallel slots against one request at a time (the same worker, the same run)",
        rows,
        "2 cores; the prebuilt engine's worker with its slots, the client at concurrency 1 (before) and "
        "at the slot count (now).",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
