"""Your own logs, one turn per line (CSV or JSONL): read in any line order, scored by `shift score` and
`dialogues metrics`, and every broken line refused naming the line and the field."""

import json

import pytest

from crseval.core.errors import CrsevalError
from crseval.data.session_logs import import_logs
from crseval.data.turn_table import is_turn_table
from tests.support.cli import crseval

CSV = """dialogue,turn,speaker,text,system,items
d1,0,user,I want a scary movie from the 80s,mine,
d1,1,system,How about The Shining (1980)?,mine,m1
d1,2,user,Seen it. A comedy instead?,mine,
d1,3,system,Try Ghostbusters (1984).,mine,m2;m3
d2,1,system,Try Alien (1979).,mine,
d2,0,user,Any sci-fi?,mine,
"""


def _jsonl(path):
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(CSV)))
    for r in rows:
        r["turn"] = int(r["turn"])
        r["items"] = [i for i in r["items"].split(";") if i]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_turns_in_any_order_become_sessions_with_their_items(tmp_path, kind):
    f = tmp_path / f"log.{kind}"
    f.write_text(CSV) if kind == "csv" else _jsonl(f)
    assert is_turn_table(f)
    sessions, notes = import_logs(f)
    assert notes == []
    by = {s["session"]: s for s in sessions}
    assert {s["model"] for s in sessions} == {"mine"}
    assert [t["user"] for t in by["d1"]["turns"]] == [
        "I want a scary movie from the 80s",
        "Seen it. A comedy instead?",
    ]
    assert by["d1"]["turns"][1]["items"] == ["m2", "m3"]
    assert by["d2"]["turns"][0]["system"] == "Try Alien (1979)."  # line order does not matter


@pytest.mark.parametrize(
    "line,field",
    [("d1,x,user,hi", "turn"), ("d1,1,,hi", "speaker"), ("d1,0,user,again", "turn")],
)
def test_a_broken_line_is_named(tmp_path, line, field):
    f = tmp_path / "log.csv"
    f.write_text("dialogue,turn,speaker,text\nd1,0,user,hi\n" + line + "\n")
    with pytest.raises(CrsevalError) as e:
        import_logs(f)
    assert e.value.line == 3 and e.value.field == field


def test_the_layout_in_three_commands(tmp_path):
    """shift score and dialogues metrics read the file as it is; a broken line is one error line."""
    f = tmp_path / "log.csv"
    f.write_text(CSV)
    res = crseval(
        "shift", "score", f, "--kb", "sample", "--out", tmp_path / "s", "--format", "json"
    )
    (row,) = json.loads(res.stdout.split("\nreport:")[0])["result"]
    assert row["system"] == "mine"
    # no logged truth: following is read from the users' words ("scary … 80s", then "a comedy")
    assert (
        row["follow.follow_rate"] == 0.0
    )  # the comedy shift met Ghostbusters, in no catalogue here
    sections = json.loads((tmp_path / "s" / "report_sections.json").read_text())
    assert "users' own words" in sections[0]["text"]
    res = crseval("dialogues", "metrics", f, "--out", tmp_path / "d", "--format", "json")
    assert "mine" in res.stdout
    f.write_text(CSV + "d3,one,user,hi,mine,\n")
    res = crseval("dialogues", "metrics", f, "--out", tmp_path / "e", check=False)
    assert res.returncode == 2 and "log.csv:8: field 'turn'" in res.stderr


RATED = "dialogue,turn,speaker,text,satisfaction\n" + "".join(
    f"d{i},0,user,I want a {g} movie,\nd{i},1,system,How about {t}?,{r}\n"
    for i, (g, t, r) in enumerate(
        [("scary", "The Shining", 5), ("funny", "Groundhog Day", 4), ("sad", "Heat", 2),
         ("romantic", "Die Hard", 1), ("space", "Interstellar", 5), ("crime", "Titanic", 2)]
    )
)  # fmt: skip


def test_judge_meta_eval_reads_the_layout_with_a_rating_column(tmp_path):
    """The third command: a rating column per dialogue is the human label a judge is compared with."""
    from crseval.data.judged import load_judged

    f = tmp_path / "rated.csv"
    f.write_text(RATED)
    judged = load_judged(f)
    assert (
        len(judged) == 6
        and judged.aspects == ["satisfaction"]
        and judged.scale("satisfaction") == (1, 5)
    )
    res = crseval(
        "judge", "meta-eval", f, "--backend", "scripted", "--n-boot", "50", "--out", tmp_path / "m",
        "--format", "json",
    )  # fmt: skip
    rows = json.loads(res.stdout.split("\nreport:")[0])["result"]
    assert {r["aspect"] for r in rows} >= {"satisfaction"} and all(
        r["n"] == 6 for r in rows if "n" in r
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            "d0,2,user,thanks,five\n",
            "rated.csv:14: field 'satisfaction': rating 'five' is not a number",
        ),
        (
            "d0,2,user,thanks,3\n",
            "rated.csv:14: field 'satisfaction': a second rating of the dialogue",
        ),
    ],
)
def test_a_rating_that_is_no_number_or_contradicts_is_named(tmp_path, extra, message):
    f = tmp_path / "rated.csv"
    f.write_text(RATED + extra)
    res = crseval(
        "judge", "meta-eval", f, "--backend", "scripted", "--out", tmp_path / "m", check=False
    )
    assert res.returncode == 2 and message in res.stderr


def test_logs_without_ratings_say_what_to_add(tmp_path):
    f = tmp_path / "log.csv"
    f.write_text(CSV)
    res = crseval(
        "judge", "meta-eval", f, "--backend", "scripted", "--out", tmp_path / "m", check=False
    )
    assert res.returncode == 2 and "no ratings" in res.stderr and "satisfaction" in res.stderr
