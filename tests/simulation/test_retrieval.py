"""Retrieval intersects the constraints and relaxes the least recent one first."""

import pytest

from crseval.data.kb import load_kb
from crseval.simulation.nlu import extract
from crseval.simulation.retrieval import candidate_set


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


def test_retrieval_intersects_and_relaxes_the_least_recent_constraint(kb):
    c = extract(kb, ["a sci-fi movie", "with Keanu Reeves"])
    found, relaxed = candidate_set(kb, c)
    assert {kb.movies[i].title for i in found} == {"The Matrix"}
    assert relaxed == []
    c = extract(
        kb, ["a horror movie", "with Keanu Reeves"]
    )  # no horror movie with Keanu in the sample
    found, relaxed = candidate_set(kb, c)
    assert relaxed == ["genres"]
    assert {kb.movies[i].title for i in found} == {"The Matrix"}
