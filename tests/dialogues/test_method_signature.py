"""The dialogue measures sign the title matcher's year tolerance it runs with, never a copy of it."""

from crseval.core.types import Item
from crseval.dialogues.job import method
from crseval.text import titles
from crseval.text.titles import TitleMatcher


def test_the_year_tolerance_that_grounds_a_title_is_the_one_signed(monkeypatch):
    catalogue = [Item("1", "Heat (1995)", {"year": 1995}), Item("2", "Heat (1972)", {"year": 1972})]
    assert "year±1" in method()
    assert TitleMatcher(catalogue).match_title("Heat", 1997).item is None  # two years off
    monkeypatch.setattr(titles, "YEAR_TOLERANCE", 2)
    assert "year±2" in method()
    assert TitleMatcher(catalogue).match_title("Heat", 1997).item == "1"
