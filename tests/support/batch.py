"""A stand-in for a batch engine (OpenAI's Batch API, vLLM's run-batch): reads a Batch input file and writes
the output file those engines write, with deterministic answers — JSON matching the requested schema, a
rating digit with its top logprobs, or a reply naming a film."""

from __future__ import annotations

import json
import math
from pathlib import Path

from crseval.llm.scripted import example_for_schema

REPLY = 'How about "Heat" (1995)? It is a classic thriller.'


def answer(body: dict) -> dict:
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant"}}
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        choice["message"]["content"] = json.dumps(example_for_schema(fmt["json_schema"]["schema"]))
    elif body.get("logprobs"):
        probs = {"3": 0.2, "4": 0.7, "5": 0.1}
        choice["message"]["content"] = "4"
        choice["logprobs"] = {
            "content": [
                {
                    "token": "4",
                    "logprob": math.log(0.7),
                    "top_logprobs": [
                        {"token": t, "logprob": math.log(p)} for t, p in probs.items()
                    ],
                }
            ]
        }
    elif body.get("max_tokens", 1000) <= 4:  # a rating asked without logprobs: the sampled digit
        choice["message"]["content"] = "4"
    else:
        choice["message"]["content"] = REPLY
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return {"id": "chatcmpl-stub", "object": "chat.completion", "choices": [choice], "usage": usage}


def answer_file(requests: Path, output: Path, fail: set[int] = frozenset()) -> int:
    """Answer every line of ``requests`` into ``output`` (lines numbered in ``fail`` get an HTTP 500);
    returns how many lines were answered."""
    lines = []
    rows = [json.loads(x) for x in requests.read_text().splitlines() if x.strip()]
    for n, row in enumerate(rows, 1):
        ok = n not in fail
        lines.append(
            {
                "id": f"batch_req_{n}",
                "custom_id": row["custom_id"],
                "response": {
                    "status_code": 200 if ok else 500,
                    "request_id": f"req_{n}",
                    "body": answer(row["body"]) if ok else {"error": "overloaded"},
                },
                "error": None,
            }
        )
    output.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return len(rows)
