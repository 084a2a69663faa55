"""PhraseIndex: every occurrence of every phrase, at whole tokens, with each value of a repeated phrase."""

from crseval.data.phrases import PhraseIndex


def test_finds_overlapping_phrases_at_token_boundaries_only():
    idx = PhraseIndex(
        [
            (("the", "matrix"), "M"),
            (("matrix",), "m"),
            (("tom", "hanks"), "TH"),
            (("matrix",), "m2"),
        ]
    )
    assert idx.find("i love the matrix with tom hanks".split()) == [
        (2, 2, "M"),
        (3, 1, "m"),
        (3, 1, "m2"),
        (5, 2, "TH"),
    ]
    assert idx.find(["thematrix", "matrixes"]) == []  # never inside a token


def test_empty_inputs():
    assert PhraseIndex([]).find(["a"]) == []
    assert PhraseIndex([(("a",), 1)]).find([]) == []
