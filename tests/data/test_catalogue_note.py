"""The lines that name a catalogue and the systems whose titles mostly fall outside it."""

from crseval.data.catalogue_note import OUTSIDE, catalogue_line, outside_lines
from crseval.data.kb import load_kb


def test_the_line_names_the_catalogue_its_size_and_the_option():
    kb = load_kb()
    line = catalogue_line(kb.info, len(kb), "--kb")
    assert line.startswith(f"catalogue: {kb.info.signature()} ({len(kb)} films;")
    assert "bundled sample" in line and "--kb" in line


def test_only_systems_mostly_outside_are_named_in_one_line():
    kb = load_kb()
    rates = [("mine", 0.94, 50), ("ok", OUTSIDE, 50), ("silent", 1.0, 0), ("v1", 0.6, 10)]
    (line,) = outside_lines(rates, kb.info, "--catalog")
    assert "mine 94%" in line and "v1 60%" in line and "--catalog" in line
    assert "ok " not in line and "silent" not in line
    assert outside_lines([("ok", 0.2, 9)], kb.info, "--kb") == []
