"""Spans of the last user message → prompt token ranges → one row of states each (every engine's)."""

import numpy as np
import pytest

from crseval.llm.base import decode_states
from crseval.llm.spans import span_rows, span_tokens


def words(text: str) -> int:  # a stand-in tokenizer: one token per word
    return len(text.split())


def test_a_span_covers_the_tokens_of_its_words_in_the_whole_prompt():
    content = "User: hi there\nAssistant: watch Heat tonight"
    prompt = "<system> rate it </system> " + content + " <end>"
    reply = content.index("watch")
    ranges = span_tokens(prompt, content, [(reply, len(content)), (-1, -1)], words)
    # the prompt's words: <system> rate it </system> User: hi there Assistant: | watch Heat tonight
    assert ranges == [(8, 11), None]
    with pytest.raises(ValueError, match="not verbatim"):
        span_tokens("something else", content, [(0, 4)], words)


def test_a_row_is_the_spans_mean_state_beside_its_last_and_nan_outside():
    states = {t: np.full(2, float(t)) for t in range(10)}
    rows = decode_states(span_rows([(2, 5), None], states, 2))
    assert rows.shape == (2, 4)
    assert rows[0].tolist() == [3.0, 3.0, 4.0, 4.0]  # mean of 2, 3, 4 beside token 4
    assert np.isnan(rows[1]).all()
