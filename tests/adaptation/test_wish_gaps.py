"""What real users ask for that the wish reading cannot read, on the bundled sample catalogue (newest film
2019); each turn's kind and reading worked out by hand."""

import pytest

from crseval.adaptation.following import Following
from crseval.adaptation.extra_wishes import extra_wishes
from crseval.adaptation.wish_gaps import category, gap_table, gaps
from crseval.data.kb import load_kb


@pytest.fixture(scope="module")
def following():
    return Following(load_kb(None))


def test_a_film_named_as_a_reference_reads_as_films_sharing_a_genre(following):
    assert extra_wishes(following, "Anything similar to Superbad?") == ["like:Superbad"]
    assert extra_wishes(following, "I watched Superbad yesterday.") == []  # no cue: not a reference
    kb = following.kb
    row = {m.title: i for i, m in enumerate(kb.movies)}
    assert kb.holds(row["Bridesmaids"], "like:Superbad")  # comedy, romance
    assert not kb.holds(row["Superbad"], "like:Superbad")  # not the film itself
    assert not kb.holds(row["The Shining"], "like:Superbad")
    assert extra_wishes(following, "Can you recommend something new?") == ["year:2015-"]
    assert extra_wishes(following, "Is it new?") == []  # no request


@pytest.mark.parametrize(
    "text, kind",
    [
        ("a film like Toy Story please", "a film as reference"),
        ("I want a comedy", "a wish already read, said again"),
        ("Hello, can you recommend me a movie?", "no wish stated (a plain request)"),
        ("What is that movie about?", "about films already named (not a wish)"),
        ("any new movies", "something new"),
        ("The best Star Wars movies", "a series, franchise or studio"),
        ("a sad movie for date night", "a mood, an occasion or an audience"),
        ("best movies ever", "quality or popularity only"),
        ("movies with dragons and castles", "a topic the reading does not know"),
    ],
)
def test_each_request_falls_in_the_first_kind_it_holds(following, text, kind):
    assert category(following, text) == kind


def test_gaps_count_the_requests_the_rules_read_and_those_the_full_reading_gains(following):
    said = [
        "Hi! I want a comedy",  # read
        "Can you recommend a comedy again?",  # said again: nothing new
        "Something like Toy Story?",  # a reference: the full reading gains like:Toy Story
        "Thanks, bye",  # no request
    ]
    counts = gaps(following, [said])
    table = gap_table(counts).set_index("wish_category")
    assert table["user_requests"].to_dict() == {
        "read by the rules": 1,
        "a film as reference": 1,
        "a wish already read, said again": 1,
    }
    assert table.loc["a film as reference", "now_read"] == 1
    assert table["request_share"].sum() == pytest.approx(1)
    steps = following.read_wishes([{"user": u} for u in said])
    assert "like:Toy Story" in steps[2]["topics"]
    assert not steps[2]["shift"]  # a film beside the same wish: no new wish
