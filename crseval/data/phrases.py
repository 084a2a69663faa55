"""Find many known phrases (titles, people, genre cues) in tokenised text in one pass.

A phrase is a sequence of tokens. The tokens of a text are joined by single spaces and searched with an
Aho–Corasick automaton (``pyahocorasick``, C) for every phrase written the same way between spaces, so a
match always covers whole tokens and overlapping matches are all reported — exactly the n-gram lookups a
loop over token positions would make, without the loop.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from typing import Any, Iterable

import ahocorasick


class PhraseIndex:
    def __init__(self, phrases: Iterable[tuple[tuple[str, ...], Any]]) -> None:
        self._automaton = ahocorasick.Automaton()
        for seq, value in phrases:
            key = " " + " ".join(seq) + " "
            values = self._automaton.get(key)[2] + [value] if key in self._automaton else [value]
            self._automaton.add_word(key, (len(seq), len(key), values))
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def find(self, tokens: list[str]) -> list[tuple[int, int, Any]]:
        """(first token, number of tokens, value) of every occurrence, by end position; a phrase registered
        with several values yields each, in registration order."""
        if self._empty or not tokens:
            return []
        text = " " + " ".join(tokens) + " "
        # the space before token i sits at offset (characters of tokens[:i]) + i
        offsets = list(accumulate([len(t) + 1 for t in tokens], initial=0))
        return [
            (bisect_left(offsets, end + 1 - key_len), n, v)
            for end, (n, key_len, values) in self._automaton.iter(text)
            for v in values
        ]
