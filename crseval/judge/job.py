"""Rate dialogues with rubric judges through the LLM layer, one resumable record per rating."""
from __future__ import annotations

from typing import Callable, Sequence

from crseval.core.types import Dialogue
from crseval.judge.rubric import Rubric, judge_request
from crseval.llm.client import LLMClient
from crseval.runs.store import RunStore


def judge_dialogues(dialogues: Sequence[Dialogue], rubrics: Sequence[Rubric], client: LLMClient, store: RunStore,
                    *, stream: str = "judgments", seed: int = 0, judge: str = "judge",
                    progress: Callable[[int], None] | None = None) -> list[dict]:
    """Append one record per (dialogue, rubric) to ``records/<stream>.jsonl``; what a previous,
    interrupted run already recorded is skipped. A rating that could not be obtained is recorded
    with its error (score None), never replaced by a default."""
    done = store.done_keys(stream)
    todo = [(d, r) for d in dialogues for r in rubrics if f"{judge}|{d.id}|{r.name}" not in done]
    if progress and len(todo) < len(dialogues) * len(rubrics):
        progress(len(dialogues) * len(rubrics) - len(todo))

    def rate(pair: tuple[Dialogue, Rubric]) -> None:
        d, r = pair
        res = client.rate(judge_request(d, r, seed=seed), r.scale)
        store.append(stream, {"key": f"{judge}|{d.id}|{r.name}", "judge": judge, "dialogue": d.id, "rubric": r.name,
                              "score": res.value, "method": res.method, "probs": res.probs, "raw": res.raw,
                              "error": res.error, "attempts": res.attempts})

    client.map(todo, rate, progress)
    return store.records(stream)
