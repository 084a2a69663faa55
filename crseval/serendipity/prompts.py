"""The SerenEva paper's zero-shot prompt and the two prompt baselines it compares with, as rating requests.

* ``sereneva`` — the paper's evaluator: the model takes the user's role, sees the item's genres and the
  user's history as a comma-separated list (oldest → newest, at most k items), and answers a 5-point
  Likert item with its anchor words as an integer;
* ``llm4seren`` — LLM4Seren: the model judges, as an outside evaluator, whether the item is serendipitous
  (relevant *and* unexpected) for the user: a binary answer;
* ``serenprompt-1`` / ``serenprompt-2`` — SerenPrompt's discrete styles: three levels (low, medium, high)
  and five named levels.

The wording is written from the papers' descriptions (their exact prompt texts are not available here);
what each style varies — who speaks, the answer's format and scale — is kept. Answers are read as
probability-weighted expected values where the backend allows and mapped linearly onto 1–5.

Every style shares one prefix — the role, what ``context`` allows the evaluator to know (the past
strictly before the target), the recommended item and any auxiliary line — and differs only in its last
sentence, so a llama.cpp backend computes the shared prefix once for all styles of one answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from crseval.data.base import SerendipityStudy
from crseval.llm import ChatRequest, Message
from crseval.serendipity.context import (
    genre_distance,
    has_history,
    history,
    item_popularity,
    item_text,
)


@dataclass(frozen=True)
class Style:
    name: str
    question: str
    scale: tuple[int, int]

    def to_likert(self, value: float) -> float:
        lo, hi = self.scale
        return 1 + 4 * (value - lo) / (hi - lo)


STYLES = {
    s.name: s
    for s in (
        Style(
            "sereneva",
            'As this user, how much do you agree with the statement "This recommendation is a pleasant '
            'surprise to me: relevant to my interests and unexpected"? 1 = strongly disagree, '
            "2 = disagree, 3 = neither agree nor disagree, 4 = agree, 5 = strongly agree. Answer with the "
            "integer only.",
            (1, 5),
        ),
        Style(
            "llm4seren",
            "Now judge as an outside evaluator: is this recommendation serendipitous for the user, that "
            "is both relevant to the user's interests and unexpected given the history? Answer 1 for no "
            "or 2 for yes, the digit only.",
            (1, 2),
        ),
        Style(
            "serenprompt-1",
            "How serendipitous (relevant and unexpected) is this recommendation for the user? Answer "
            "1 (low), 2 (medium) or 3 (high), the digit only.",
            (1, 3),
        ),
        Style(
            "serenprompt-2",
            "How serendipitous (relevant and unexpected) is this recommendation for the user? Answer "
            "1 (not serendipitous), 2 (slightly), 3 (moderately), 4 (very) or 5 (extremely), the "
            "digit only.",
            (1, 5),
        ),
    )
}

AUX_LINES = ("popularity", "similarity", "interaction", "curiosity", "personality", "profiles")


def system_prompt(study: SerendipityStudy) -> str:
    platform = "a movie recommendation platform" if study.items else "an e-commerce platform"
    return f"You are a user of {platform}. You will see what you did on the platform and one recommendation."


def shared_prefix(
    study: SerendipityStudy,
    row: pd.Series,
    k: int,
    aux: str | None = None,
    profile: str | None = None,
) -> str:
    """Everything but the question: the history before the target (k items), the item, one auxiliary line."""
    lines, h = [], None
    if has_history(study):
        h = history(study, row["user"], row["item"], k)
        lines.append(
            "Your history, oldest to newest: "
            + (
                ", ".join(item_text(study, i) for i in h["item"])
                if len(h)
                else "nothing rated before this"
            )
            + "."
        )
    lines.append(f"Recommended to you: {item_text(study, row['item'], row.get('category'))}.")
    if aux == "popularity":
        lines.append(
            f"Popularity: {100 * item_popularity(study, row['item']):.1f} % of the users in this study "
            "rated this movie."
        )
    elif aux == "similarity":
        j = genre_distance(study, row["user"], row["item"], k, None if h is None else h["item"])
        lines.append(
            "Genre similarity to your history: "
            + (
                f"minimum Jaccard distance {j:.2f} (0 = same genres, 1 = none shared)."
                if j is not None
                else "unknown."
            )
        )
    elif aux == "interaction":
        lines.append(
            "Your history consists of explicit ratings (0.5–5 stars) of movies you watched."
        )
    elif aux in ("curiosity", "personality"):
        cols, scale = (
            ([f"C{i}" for i in range(1, 11)], "1–5")
            if aux == "curiosity"
            else ([f"P{i}" for i in range(1, 11)], "1–7")
        )
        values = ", ".join(f"{row[c]:g}" for c in cols if c in row and pd.notna(row[c]))
        lines.append(f"Your {aux} self-assessment ({cols[0]}–{cols[-1]}, {scale}): {values}.")
    elif aux == "profiles":
        lines.append(f"Your tastes, long-term and short-term: {profile or 'unknown'}")
    return "\n".join(lines)


def style_request(
    study: SerendipityStudy,
    row: pd.Series,
    style: Style,
    *,
    k: int = 10,
    aux: str | None = None,
    profile: str | None = None,
    temperature: float = 0.0,
    shots: Sequence[pd.Series] = (),
) -> ChatRequest:
    """The style's question about ``row``; with ``shots`` (other users' answers), each first as an earlier
    exchange: its own prefix and the question, answered with that user's ground truth on the style's scale."""
    examples: list[Message] = []
    for ex in shots:
        lo, hi = style.scale
        said = round(lo + (float(ex["ground_truth"]) - 1) / 4 * (hi - lo))
        examples += [
            Message("user", shared_prefix(study, ex, k) + "\n\n" + style.question),
            Message("assistant", str(said)),
        ]
    text = shared_prefix(study, row, k, aux, profile) + "\n\n" + style.question
    return ChatRequest(
        (Message("system", system_prompt(study)), *examples, Message("user", text)),
        temperature=temperature,
        max_tokens=4,
    )
