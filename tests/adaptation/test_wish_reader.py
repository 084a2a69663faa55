"""The LLM reading of the user's wishes (``scoring.reader = "llm"``): its answers grounded in the catalogue
as the rules' reading is, so both give the follow.* measures the same shapes."""

from __future__ import annotations

import jsonschema
import pytest

from crseval.adaptation.following import Following
from crseval.adaptation.wish_reader import LLMWishReader
from crseval.data.kb import load_kb
from crseval.llm.client import StructuredResult


class StubClient:
    """Answers the reading after user turn k with ``answers[k]`` (None: an answer that could not be
    parsed), as a cached LLM would answer the same prompt the same way."""

    def __init__(self, answers):
        self.answers, self.prompts = answers, []

    def identity(self):
        return {"backend": "stub", "model": "stub"}

    def map(self, items, fn):
        return [fn(i) for i in items]

    def structured(self, request, schema):
        jsonschema.Draft202012Validator.check_schema(schema)
        prompt = request.messages[-1].content
        self.prompts.append(prompt)
        said = sum(line[:1].isdigit() and ". '" in line for line in prompt.splitlines())
        value = self.answers[said - 1]
        if value is not None:
            jsonschema.validate(value, schema)
        return StructuredResult(value, "", None if value else "unparseable", 1)


@pytest.fixture(scope="module")
def kb():
    return load_kb(None)


def test_answers_are_grounded_in_the_catalogue_and_in_the_users_words(kb):
    reader = LLMWishReader(StubClient([]), kb)
    answer = {
        "genres": ["romance", "romance"],
        "year_from": 1990,
        "year_to": 1999,
        "actor": "ryan gosling",  # any case: the catalogue's name index decides
        "director": "Ryan Gosling",  # filled in too, but the user did not ask for a director
        "writer": "Nobody Anyone",  # not in the catalogue
        "language": "English",  # never said
        "keywords": ["Zzzyzx", "movie", "romance"],  # not a plot word; not said; a genre word
    }
    said = "A romance from the 90s, please. Something with Ryan Gosling?"
    gosling = kb.find_names("ryan gosling")[0]
    assert gosling[0] == "actor"
    assert reader.ground(answer, said) == {
        "genres": ["romance"],
        "year": [1990, 1999],
        "actor": gosling[1],
    }
    assert "year" not in reader.ground(answer, "A romance, please.")  # no year in the words


def test_the_llm_reading_feeds_the_same_follow_measures(kb):
    """Three user turns, read after each: romance, then romance + Ryan Gosling (a shift), then nothing new;
    the second reading fails to parse and reads as no wish, which the third (romance + Gosling) recovers."""
    answers = [
        {"genres": ["romance"]},
        None,
        {"genres": ["romance"], "actor": "Ryan Gosling"},
    ]
    client = StubClient(answers)
    following = Following(kb, LLMWishReader(client, kb))
    turns = [
        {"turn": 0, "user": "A romance, please.", "system": 'How about "Titanic" (1997)?'},
        {"turn": 1, "user": "Something with Ryan Gosling?", "system": 'Try "Titanic" (1997).'},
        {"turn": 2, "user": "Hm.", "system": '"The Notebook" (2004) stars him.'},
    ]
    read = following.read_wishes(turns)
    gosling = f"actor:{kb.find_names('ryan gosling')[0][1]}"
    assert [r["topics"] for r in read] == [
        ["genre:romance"],
        [],
        sorted(["genre:romance", gosling]),
    ]
    assert [r["shift"] for r in read] == [False, False, True]
    assert following.reader.failures == 1
    assert "'Something with Ryan Gosling?'" in client.prompts[1]  # everything said so far, quoted
    assert "'Hm.'" not in client.prompts[1]
    scores = following.session(turns)
    assert scores["follow.follow_rate"] == 1.0  # the shift's reply names The Notebook, with Gosling
