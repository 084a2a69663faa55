"""The title matcher: keys, exact / suffix / fuzzy / year matching, and reading free text."""

import re

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


def test_everyday_words_count_as_a_title_of_several_words_in_its_capitals_inside_a_sentence():
    m = TitleMatcher(
        [
            Item("1", "Back to the Future", {}),
            Item("2", "Frozen (2013)", {"year": 2013, "plot": "a frozen lake; the frozen north"}),
            Item("3", "2012", {}),
            Item("4", "A.I. Artificial Intelligence", {}),
        ]
        + [
            Item(
                f"p{i}",
                f"Plot {i}",
                {"plot": "back to the frozen future of artificial intelligence"},
            )
            for i in range(2)
        ]  # fmt: skip
    )
    said = (
        "You might like Back to the Future, or try Frozen (2013). Or A.I. Artificial Intelligence!"
    )
    assert [x.item for x in m.find(said)] == ["1", "2", "4"]
    assert m.find("I went back to the future and the lake was frozen.") == []
    assert m.find("Back to the Future is fun.") == []  # opening a sentence
    assert m.find("We watched Frozen, a Thriller.") == []  # one everyday word, bare: not a title
    assert m.find("Since 2012 I have seen 300 films.") == []  # a bare number: a year or a count
    assert m.find("Try Doc Back to the Future.") == []  # the tail of a longer name
    assert [x.item for x in m.find("(Back to the Future")] == ["1"]  # after a bracket
    assert [x.item for x in m.find('You might like "2012" or "Frozen".')] == ["3", "2"]


_YEAR = re.compile(r"\((?:19|20)\d{2}\)$")


def catalogue(name: str) -> list[Item]:
    from crseval.data.kb import load_kb
    from tests.conftest import shared_path

    return load_kb(None if name == "sample" else str(shared_path(name))).movies


@pytest.mark.parametrize("name", ["sample", "redial", "opendialkg/opendialkg_movie_data.json"])
def test_every_catalogue_title_written_as_a_crs_writes_it_is_grounded_to_itself(name):
    """A CRS that names titles copied from its catalogue: "You might like <title>." — the title in quotes
    where bare words need not be one (one word: "War", "1984", "Us"; lower-case words)."""
    items = catalogue(name)
    m = TitleMatcher(items)
    wrong = []
    for it in items:
        key, year = title_key(it.title)
        words = it.title.split()
        bare = not (
            len(key.split(" ")) == 1  # one word, bare, is read only where it is no everyday word
            or any(
                w.islower() and w not in ("of", "the", "a", "and", "in", "to") for w in words[1:]
            )
        )
        if not key:
            continue
        sentence = f"You might like {it.title}." if bare else f'You might like "{it.title}".'
        dated = (
            _YEAR.search(it.title) is not None
        )  # a list is read as a list of titles only with years
        for said in [sentence] + (
            [f"Try these:\n1. **{it.title}**", f"Some picks:\n- {it.title}\n"] if dated else []
        ):  # in a sentence (bare or quoted); bolded in a numbered list, in a bulleted one
            found = m.find(said)
            ok = len(found) == 1 and found[0].item is not None
            if ok:
                k2, y2 = title_key(m.items[found[0].item].title)
                ok = found[0].item == it.id or (
                    k2 == key and (None in (year, y2) or abs(y2 - year) <= 1)
                )
                # and shown as the title, without the quotes or emphasis around it
                ok = ok and found[0].surface[0] == it.title[0]
            if not ok:
                wrong.append((said, [(x.surface, x.item) for x in found]))
    assert not wrong, f"{len(wrong)} of {len(items)}: {wrong[:10]}"
