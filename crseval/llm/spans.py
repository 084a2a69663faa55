"""Hidden states of character spans, the same for every engine that reads them: which prompt tokens a span
of the last user message covers, and the row each span gets (its tokens' mean state beside its last
token's)."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from crseval.llm.base import encode_states


def span_tokens(
    prompt: str, content: str, spans: Sequence[Sequence[int]], count: Callable[[str], int]
) -> list[tuple[int, int] | None]:
    """Token ranges [start, end) of character spans of ``content`` (the last user message) inside the
    rendered ``prompt``: a span ends at the token count (``count``) of the prompt cut where it ends (None:
    a span outside the message)."""
    at = prompt.rfind(content)
    if at < 0:
        raise ValueError("the user message is not verbatim in the chat prompt")
    out: list[tuple[int, int] | None] = []
    for a, b in spans:
        if a < 0:
            out.append(None)
            continue
        end = count(prompt[: at + b])
        out.append((min(count(prompt[: at + a]), end - 1), end))
    return out


def span_rows(
    ranges: Sequence[tuple[int, int] | None], states: Mapping[int, np.ndarray], width: int
) -> str:
    """One row per span — the mean of its tokens' states beside its last token's, NaN for a span outside
    the message — as :func:`crseval.llm.base.encode_states`."""
    rows = [
        np.concatenate([np.mean([states[t] for t in range(*r)], axis=0), states[r[1] - 1]])
        if r
        else np.full(2 * width, np.nan)
        for r in ranges
    ]
    return encode_states(np.array(rows, dtype=float).reshape(len(ranges), 2 * width))
