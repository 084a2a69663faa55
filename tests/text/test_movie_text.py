"""Movie-text rules: titles found longest first, one-word titles only as written."""

import pytest

from crseval.data.kb import load_kb
from crseval.text.movie_text import mentioned_titles


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


def test_titles_are_found_longest_first_and_one_word_titles_only_as_written(kb):
    assert mentioned_titles(kb, "You could watch Heat or The Dark Knight.") == [
        "Heat",
        "The Dark Knight",
    ]
    assert mentioned_titles(kb, "the heat of the moment") == []


def _reference_titles(kb, text):
    """The original loop over every token position and every title that starts with its word."""
    import re as _re
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as STOP

    token = _re.compile(r"\w+(?:'\w+)?")
    toks, hits = token.findall(text), []
    low = [t.lower() for t in toks]
    for s in range(len(low)):
        for m in kb.movies:
            seq = tuple(t.lower() for t in token.findall(m.title))
            if not seq or tuple(low[s : s + len(seq)]) != seq:
                continue
            if len(seq) == 1 and (
                low[s] in STOP or len(low[s]) < 3 or toks[s] != token.findall(m.title)[0]
            ):
                continue
            hits.append((s, len(seq), m.title))
    taken, kept = set(), []
    for s, n, d in sorted(hits, key=lambda h: -h[1]):
        if not taken & set(range(s, s + n)):
            taken |= set(range(s, s + n))
            kept.append((s, d))
    return list(dict.fromkeys(d for _, d in sorted(kept)))


def test_phrase_index_finds_what_a_loop_over_every_position_finds(kb):
    texts = (
        [m.get("plot", "") for m in kb.movies]
        + [f"{m.title} or {m.title.upper()} or {m.title.lower()}?" for m in kb.movies]
        + ["", "the the the", "Heat heat Up"]
    )
    for text in texts:
        assert mentioned_titles(kb, text) == _reference_titles(kb, text), text


def test_star_wars_is_not_a_wish_for_war_films():
    from crseval.text.movie_text import genre_mentions

    assert genre_mentions("The best Star Wars movies") == []
    assert genre_mentions("a good war movie") == [("war", False)]
