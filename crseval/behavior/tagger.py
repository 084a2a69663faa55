"""An LLM strategy tagger: zero- or few-shot, with the strategy definitions, through the LLM layer's
structured output (the answer is constrained to the 14 labels)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from crseval.data.strategies import LABELS, describe
from crseval.llm import ChatRequest, LLMClient

SCHEMA = {
    "type": "object",
    "properties": {"strategy": {"type": "string", "enum": list(LABELS)}},
    "required": ["strategy"],
}
SYSTEM = "You label the recommendation strategy of one message written by a movie recommender."


def tag_request(text: str, examples: Sequence[tuple[str, str]] = ()) -> ChatRequest:
    shots = "".join(f'Message: "{t}"\nAnswer: {{"strategy": "{lab}"}}\n\n' for t, lab in examples)
    user = (
        f"Strategies:\n{describe(examples=not examples)}\n\n{shots}"
        f'Message: "{text}"\nAnswer with JSON {{"strategy": <one of the strategy names>}}.'
    )
    return ChatRequest.chat(user, system=SYSTEM, max_tokens=24, temperature=0.0)


def few_shot_examples(
    train: pd.DataFrame, per_label: int = 1, seed: int = 0
) -> list[tuple[str, str]]:
    """``per_label`` examples of each strategy from *training* sentences (never the evaluated ones)."""
    picked = (
        train.sample(frac=1.0, random_state=seed)
        .groupby("label")
        .head(per_label)
        .sort_values("label")
    )
    return list(zip(picked["text"], picked["label"]))


def tag(
    client: LLMClient, texts: Sequence[str], examples: Sequence[tuple[str, str]] = (), progress=None
) -> list[str | None]:
    """Labels (None where the output could not be parsed — recorded by the client's stats)."""
    results = client.map(
        [tag_request(t, examples) for t in texts], lambda r: client.structured(r, SCHEMA), progress
    )
    return [r.value["strategy"] if r.ok else None for r in results]
