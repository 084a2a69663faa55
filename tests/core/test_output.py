"""A job's pieces return an Output each; ``Output.add`` puts a piece after what the job has, in order."""

import pandas as pd

from crseval.core.output import Output


def test_a_piece_adds_its_tables_figures_sections_details_and_notes_in_order():
    job = Output("headline", signature={"data": "d@1"})
    job.table("first", pd.DataFrame({"a": [1]}))
    job.section("Shared", "the job's text", tables=["first"])
    piece = Output("ignored", signature={"data": "other"})
    piece.table("second", pd.DataFrame({"b": [2]}))
    piece.figure("plot", lambda path: None, "a caption")
    piece.section("Shared", "the piece's text", tables=["second"])
    piece.section("Own", "more")
    piece.details["detail"] = pd.DataFrame()
    piece.notes.append("a note")
    assert job.add(piece) is job
    assert list(job.tables) == ["first", "second"] and list(job.figures) == ["plot"]
    assert [(s.title, s.text) for s in job.sections] == [
        ("Shared", "the piece's text"),
        ("Own", "more"),
    ]
    assert list(job.details) == ["detail"] and job.notes == ["a note"]
    assert job.title == "headline" and job.signature == {"data": "d@1"}
