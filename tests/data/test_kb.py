"""The movie KB indexes on the real OpenDialKG file."""

import pytest

from crseval.data.kb import load_kb
from crseval.simulation.nlu import extract


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


def test_real_kb_indexes(shared):
    kb = load_kb(shared("opendialkg/opendialkg_movie_data.json"))
    assert len(kb) == 2164
    assert "tom hanks" in kb.index["actor"]
    assert kb.genres["comedy"]
    assert ("director", "Steven Spielberg") in kb.find_names("anything by Steven Spielberg")
    assert all(2 <= len(s) <= 0.02 * len(kb) for s in kb.keywords.values())
    c = extract(kb, ["a crime movie", "with Tom Hanks", "something about a heist"])
    assert c.as_dict() == {"genres": ["crime"], "actor": "Tom Hanks", "keywords": ["heist"]}
