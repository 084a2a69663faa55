"""The title matcher: keys, exact / suffix / fuzzy / year matching, and reading free text."""

import pytest

from crseval.core.types import Item
from crseval.text.titles import TitleMatcher, title_key

ITEMS = [
    Item(
        "1",
        "The Matrix (1999)",
        {"year": 1999, "plot": "A hacker learns the world is a simulation."},
    ),
    Item("2", "Police Academy (1984)", {"year": 1984}),
    Item("3", "Halloween (1978)", {"year": 1978}),
    Item("4", "Halloween (2007)", {"year": 2007}),
    Item("5", "Inception (2010)", {"year": 2010}),
    Item("6", "Anything Else (2003)", {"year": 2003}),
    Item("7", "I, Robot (2004)", {"year": 2004}),
    Item("8", "The Rock (1996)", {"year": 1996, "plot": "a rock band plays"}),
    Item("9", "Guardians of the Galaxy (2014)", {"year": 2014, "plot": "the rock and the galaxy"}),
    Item("10", "Mission: Impossible – Rogue Nation (2015)", {"year": 2015}),
]


@pytest.fixture(scope="module")
def matcher():
    return TitleMatcher(ITEMS)


@pytest.mark.parametrize(
    "title, key",
    [
        ("The Matrix (1999)", ("matrix", 1999)),
        ("Matrix, The (1999)", ("matrix", 1999)),
        ("American Pie ", ("american pie", None)),
        ("Police Academy  (1984)", ("police academy", 1984)),
        ("Million Dollar Duck (a.k.a. $1,000,000 Duck) (1971)", ("million dollar duck", 1971)),
        ("A", ("a", None)),
    ],
)
def test_title_key(title, key):
    assert title_key(title) == key


def test_match_title(matcher):
    assert matcher.match_title("Matrix, The").item == "1"
    assert (
        matcher.match_title("Try Police Academy").item == "2"
    )  # the longest suffix that is a title
    assert matcher.match_title("Inceptoin").item is None  # one transposition: ratio 88.9 < 90 …
    m = TitleMatcher(ITEMS, min_score=85).match_title("Inceptoin")  # … found at a lower bar
    assert (m.item, m.how) == ("5", "fuzzy")
    assert matcher.match_title("Police Acadamy").item == "2"  # ratio 92.9
    assert matcher.match_title("Halloween (2007)").item == "4"  # the year tells remakes apart
    m = matcher.match_title("Halloween")
    assert (m.item, m.ambiguous) == ("3", True)  # no year: the earliest, marked
    assert matcher.match_title("Halloween (1990)").item is None  # a year no Halloween has
    assert matcher.match_title("The Matrix (2000)").item == "1"  # a year off by one is tolerated
    assert matcher.match_title("The Matrix Resurrections 4").item is None


def test_find_reads_titles_in_free_text(matcher):
    text = (
        'You should watch Police Academy (1984). I also loved "Inception" and **The Matrix** (1999)! '
        "Have you seen I, Robot (2004) or Mission: Impossible – Rogue Nation (2015)?"
    )
    found = matcher.find(text)
    assert [m.item for m in found] == ["2", "5", "1", "7", "10"]
    assert found[0].start == text.index("Police")


def test_find_keeps_invented_titles_whole(matcher):
    found = matcher.find(
        'Try "The Matrix Resurgence" (2031) or Galaxy Raiders of the Matrix (2021).'
    )
    assert [(m.surface, m.item) for m in found] == [
        ("The Matrix Resurgence", None),
        ("Galaxy Raiders of the Matrix", None),
    ]


def test_find_ignores_everyday_words(matcher):
    assert matcher.find("Anything else you would like? The rock was heavy.") == []
    assert matcher.find("Inception is good.") == []  # one word opening a sentence
    assert [m.item for m in matcher.find("I think Inception is good.")] == ["5"]
    assert [
        m.item for m in matcher.find("1. Guardians of the Galaxy - fun\n2. Halloween: scary")
    ] == ["9", "3"]
