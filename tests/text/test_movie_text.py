"""Movie-text rules: titles found longest first, one-word titles only as written."""
import pytest

from crseval.data.kb import load_kb
from crseval.text.movie_text import mentioned_titles


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


def test_titles_are_found_longest_first_and_one_word_titles_only_as_written(kb):
    assert mentioned_titles(kb, "You could watch Heat or The Dark Knight.") == ["Heat", "The Dark Knight"]
    assert mentioned_titles(kb, "the heat of the moment") == []
