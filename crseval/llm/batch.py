"""A run's LLM work as batch files: the requests it still needs, written in the OpenAI Batch input layout
(what OpenAI's Batch API and vLLM's ``run-batch`` read), and the answers read back from a Batch output file
into the run's caches — so the same command then runs with no new call for what was answered.

``custom_id`` is the request's cache key. A run whose prompts depend on earlier answers (a CRS's next
turn, a simulated user's reply, a re-ask for invalid JSON) is exported in rounds: each export holds what
the answers so far make askable; export again after each import until nothing is left. The run directory
keeps what each export asked for (``batch/pending.jsonl``: key, the part of the run whose cache takes
the answer, the answer's single-token choices) and how many batches it imported (``batch/round.json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crseval.core.errors import CrsevalError
from crseval.llm.base import ChatResponse
from crseval.llm.cache import ResponseCache
from crseval.llm.openai_compat import request_body, response_from

URL = "/v1/chat/completions"
FOLDER, PENDING, ROUND = "batch", "pending.jsonl", "round.json"
CACHE = "llm_cache.sqlite"


@dataclass
class Export:
    file: Path
    written: int
    left_out: int  # requests no batch endpoint can answer (hidden states, a llama.cpp grammar)
    round: int

    def line(self) -> str:
        if not self.written:
            return "batch: nothing left to ask — run the command without --batch-export" + (
                f" ({self.left_out} request(s) need the embedded model)" if self.left_out else ""
            )
        return (
            f"batch round {self.round}: {self.written} request(s) written to {self.file}"
            + (
                f" ({self.left_out} left out: they need the embedded model)"
                if self.left_out
                else ""
            )
            + " — answer them (OpenAI Batch API, vLLM run-batch, …), then `crseval llm batch-import "
            "OUTPUT.jsonl --run RUN_DIR`, and export again for the next round"
        )


@dataclass
class Imported:
    answers: int = 0
    errors: list[str] = field(default_factory=list)


def write_export(recorded: list[tuple[str, Any]], root: Path, file: Path) -> Export:
    """Write the recorders' pending requests to ``file`` and what they ask for to ``root/batch``."""
    lines, asked, left_out = [], _pending(root), 0
    for part, recorder in recorded:
        for key, (request, identity) in recorder.pending.items():
            if request.hidden_spans or (request.grammar and identity.get("backend") != "openai"):
                left_out += 1  # the embedded model's own (a server is sent no grammar, as live)
                continue
            body = request_body(request, str(identity.get("model")))
            lines.append({"custom_id": key, "method": "POST", "url": URL, "body": body})
            asked[key] = {"key": key, "part": part, "choices": list(request.choices)}
    _write_lines(file, lines)
    _write_lines(root / FOLDER / PENDING, list(asked.values()))
    return Export(file, len(lines), left_out, _imports(root) + 1)


def import_answers(output: Path, root: Path) -> Imported:
    """Read an OpenAI Batch output file into the caches of ``root`` (the part each request came from).
    A line that is not JSON refuses the whole file (nothing is written); a failed or unknown request is
    reported by line and left for the next export."""
    asked = _pending(root)
    if not asked:
        raise CrsevalError(
            "this run directory has exported no batch",
            file=root,
            fix="run the command with --batch-export FILE --out RUN_DIR first",
        )
    rows = []
    with open(output, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            if text.strip():
                try:
                    rows.append((n, json.loads(text)))
                except json.JSONDecodeError as e:
                    raise CrsevalError(
                        f"line {n} is not JSON ({e.msg})",
                        file=output,
                        fix="pass the Batch output file as the provider wrote it; nothing was imported",
                    ) from None
    result, by_part = Imported(), {}
    for n, row in rows:
        key = row.get("custom_id") if isinstance(row, dict) else None
        if key not in asked:
            result.errors.append(
                f"line {n}: custom_id {str(key)[:16]!r} was not exported by this run"
            )
            continue
        answer, why = _answer(row, tuple(asked[key]["choices"]))
        if answer is None:
            result.errors.append(f"line {n}: {why}")
            continue
        by_part.setdefault(asked[key]["part"], []).append((key, answer))
    for part, items in by_part.items():
        cache = ResponseCache(root.joinpath(*filter(None, part.split("/")), CACHE))
        try:
            cache.put_many(items)
        finally:
            cache.close()
        result.answers += len(items)
    if result.answers:
        (root / FOLDER / ROUND).write_text(json.dumps({"imports": _imports(root) + 1}))
    return result


def _imports(root: Path) -> int:
    """How many batches were imported into the run (the next export is round imports + 1)."""
    path = root / FOLDER / ROUND
    return json.loads(path.read_text())["imports"] if path.is_file() else 0


def _answer(row: dict[str, Any], choices: tuple[str, ...]) -> tuple[ChatResponse | None, str]:
    response = row.get("response") or {}
    if row.get("error"):
        return None, f"the provider reported {json.dumps(row['error'])[:200]}"
    if response.get("status_code") != 200:
        return None, f"HTTP {response.get('status_code')}: {json.dumps(response.get('body'))[:200]}"
    try:
        return response_from(response["body"], choices), ""
    except (KeyError, IndexError, TypeError, AttributeError):
        return None, "the response body is not a chat completion"


def _pending(root: Path) -> dict[str, dict[str, Any]]:
    path = root / FOLDER / PENDING
    if not path.is_file():
        return {}
    return {
        r["key"]: r
        for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        if r.get("key")
    }


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    tmp.replace(path)
