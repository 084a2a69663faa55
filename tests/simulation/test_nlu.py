"""The rule-based CRS understanding: constraint extraction on utterances with known answers."""

import pytest

from crseval.data.kb import load_kb
from crseval.simulation.nlu import extract


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


@pytest.mark.parametrize(
    "utterances, expected",
    [
        (["I want a comedy"], {"genres": ["comedy"]}),
        (["Something scary please"], {"genres": ["horror"]}),
        (["I like sci fi"], {"genres": ["sci-fi"]}),
        (
            ["a comedy", "no more comedy, something scary from the 90s"],
            {"genres": ["horror"], "year": [1990, 1999]},
        ),
        (["a thriller", "maybe also some horror"], {"genres": ["thriller", "horror"]}),
        (["a thriller", "Actually a mix of drama and romance"], {"genres": ["drama", "romance"]}),
        (["movies before 1980"], {"year": [None, 1979]}),
        (["anything after 2010"], {"year": [2011, None]}),
        (["a film from 1999"], {"year": [1999, 1999]}),
        (["something from the '90s"], {"year": [1990, 1999]}),
        (["one with Keanu Reeves"], {"actor": "Keanu Reeves"}),
        (["by Christopher Nolan", "no, not Christopher Nolan"], {}),
        (["in French please"], {"language": "French"}),
        (
            ["an action movie", "with Keanu Reeves", "start over: a romance"],
            {"genres": ["romance"]},
        ),
    ],
)
def test_extractor_known_answers(kb, utterances, expected):
    assert extract(kb, utterances).as_dict() == expected


def test_later_values_replace_earlier_ones(kb):
    c = extract(kb, ["one with Keanu Reeves", "actually one with Leonardo DiCaprio"])
    assert c.values["actor"] == "Leonardo DiCaprio"
    assert c.stated["actor"] == 1


def test_keywords_need_a_plot_cue_and_are_never_genres(shared):
    kb = load_kb(shared("opendialkg/opendialkg_movie_data.json"))
    assert (
        extract(
            kb, ["Not sure about Birdman or (The Unexpected Virtue of Ignorance). Another idea?"]
        ).as_dict()
        == {}
    )
    said = extract(
        kb,
        [
            "a comedy",
            "No, forget what I said about comedy, not comedy anymore. Let's switch to musical",
        ],
    )
    assert said.as_dict() == {"genres": ["musical"]}
    assert extract(kb, ["I'm curious about a story involving heist and mumbai."]).as_dict() == {
        "keywords": ["heist", "mumbai"]
    }
    assert extract(kb, ["Let's switch to teen, please."]).as_dict() == {
        "genres": ["teen"]
    }  # every canonical genre
