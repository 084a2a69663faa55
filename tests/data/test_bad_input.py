"""Bad input gets a CrsevalError naming file, line and field — constructed cases and hypothesis fuzz."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crseval.core.errors import CrsevalError
from crseval.data import load_dataset
from crseval.data.ratings import load_ratings

HEADER = "dialog_id\tutt_id\tspeaker\tturn_id\ttext\texpert_label\n"


def write(tmp_path, name, content: bytes | str):
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    return p


def test_inspired_label_outside_taxonomy(tmp_path):
    p = write(tmp_path, "x.tsv", HEADER + "d1\t1\tRECOMMENDER\t1\thi\tflattery\n")
    with pytest.raises(CrsevalError) as e:
        load_dataset("inspired", p)
    assert e.value.line == 2
    assert e.value.field == "expert_label"
    assert "taxonomy" in str(e.value)


def test_inspired_missing_column(tmp_path):
    p = write(
        tmp_path, "x.tsv", "dialog_id\tutt_id\tspeaker\tturn_id\ttext\nd1\t1\tSEEKER\t1\thi\n"
    )
    with pytest.raises(CrsevalError) as e:
        load_dataset("inspired", p)
    assert e.value.field == "expert_label"
    assert e.value.line == 1


def test_non_utf8_byte_reports_line(tmp_path):
    p = write(tmp_path, "x.tsv", HEADER.encode() + b"d1\t1\tSEEKER\t1\tcaf\xe9\t\n")
    with pytest.raises(CrsevalError) as e:
        load_dataset("inspired", p)
    assert e.value.line == 2
    assert "UTF-8" in str(e.value)


def test_truncated_jsonl_line(tmp_path):
    good = {
        "conversationId": "1",
        "movieMentions": {},
        "initiatorWorkerId": 1,
        "messages": [{"text": "hi", "senderWorkerId": 1}],
    }
    p = write(tmp_path, "r.jsonl", json.dumps(good) + "\n" + json.dumps(good)[:30])
    with pytest.raises(CrsevalError) as e:
        load_dataset("redial", p)
    assert e.value.line == 2
    assert "truncated" in str(e.value)


def test_redial_missing_field(tmp_path):
    p = write(
        tmp_path,
        "r.jsonl",
        json.dumps({"conversationId": "1", "messages": [{"senderWorkerId": 1}]}) + "\n",
    )
    with pytest.raises(CrsevalError) as e:
        load_dataset("redial", p)
    assert e.value.field == "text"
    assert e.value.line == 1


@pytest.mark.parametrize("line", ["[1, 2]", "7", '"text"', "null"])
def test_redial_line_that_is_no_object(tmp_path, line):
    p = write(tmp_path, "r.jsonl", line + "\n")
    with pytest.raises(CrsevalError) as e:
        load_dataset("redial", p)
    assert e.value.line == 1
    assert "expected a JSON object" in str(e.value)


def test_ratings_duplicate_and_off_scale(tmp_path):
    p = write(tmp_path, "r.csv", "item,rater,q\ni1,a,3\ni1,a,4\n")
    with pytest.raises(CrsevalError, match="twice") as e:
        load_ratings(p, item_col="item", rater_col="rater")
    assert e.value.line == 3
    p = write(tmp_path, "r2.csv", "item,rater,q\ni1,a,9\n")
    with pytest.raises(CrsevalError, match="outside the scale"):
        load_ratings(p, item_col="item", rater_col="rater")


def test_ratings_empty_cells_are_counted_not_hidden(tmp_path):
    p = write(tmp_path, "r.csv", "item,rater,q,w\ni1,a,3,\ni2,a,4,2\n")
    r = load_ratings(p, item_col="item", rater_col="rater")
    assert len(r) == 3
    assert r.info.notes == ["1 empty rating cells skipped"]


def test_serendipity_answers_name_the_first_bad_cell_in_file_order(tmp_path):
    """Numbers are read a column at a time; the refusal is still the first bad cell reading the file."""
    head = "userId,movieId,rating,s4,s5,s6,predictedRating\n"
    ok = "1,10,4,3,2,1,\n2,11,3.5, 5 ,na,1e0,3.2\n"
    study = load_dataset("serendipity2018", write(tmp_path, "a.csv", head + ok))
    answers = study.answers
    assert answers["s5"].isna().tolist() == [False, True] and answers["s4"].tolist() == [3.0, 5.0]
    assert answers["predicted_rating"].isna().tolist() == [True, False]
    bad = head + ok + "3,12,4,x,2,1,\n4,13,,3,2,1,\n"  # row 4: s4 'x'; row 5: the rating empty
    with pytest.raises(CrsevalError, match="'x' is not a number") as e:
        load_dataset("serendipity2018", write(tmp_path, "b.csv", bad))
    assert (e.value.line, e.value.field) == (4, "s4")
    with pytest.raises(CrsevalError, match="empty value") as e:
        load_dataset("serendipity2018", write(tmp_path, "c.csv", head + "4,,4,3,2,1,\n"))
    assert (e.value.line, e.value.field) == (2, "movieId")


@pytest.mark.parametrize(
    "name",
    [
        "inspired",
        "redial",
        "redial-movies",
        "opendialkg-movies",
        "crs-que",
        "ab-redial",
        "uss-redial",
        "serendipity2018",
        "taobao-serendipity",
    ],
)
def test_empty_file_is_refused(tmp_path, name):
    p = write(tmp_path, "empty.txt", b"")
    with pytest.raises(CrsevalError):
        load_dataset(name, p)


def _fuzz(name, content: bytes, tmp_path_factory):
    p = tmp_path_factory.mktemp("fuzz") / "f.dat"
    p.write_bytes(content)
    try:
        load_dataset(name, p)
    except CrsevalError as e:
        assert e.file is not None  # every refusal names the file
    # anything else (KeyError, ValueError, a traceback) fails the test


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
@pytest.mark.parametrize(
    "name,seed",
    [
        (
            "inspired",
            HEADER + "d1\t1\tRECOMMENDER\t1\thello\tcredibility\nd1\t2\tSEEKER\t1\thi\t\n",
        ),
        (
            "redial",
            json.dumps(
                {
                    "conversationId": "1",
                    "movieMentions": {"5": "X (2000)"},
                    "initiatorWorkerId": 1,
                    "messages": [{"text": "like @5", "senderWorkerId": 1}],
                }
            )
            + "\n",
        ),
        (
            "crs-que",
            "annotation_id,participant_id,dialogue_id,is_gold_standard,time_spent,"
            + ",".join(__import__("crseval.data.ratings", fromlist=["x"]).CRS_QUE_DIMENSIONS)
            + "\n1,P1,d1,0,10,"
            + ",".join(["3"] * 18)
            + "\n",
        ),
        (
            "opendialkg-movies",
            json.dumps(
                {"A": {"name": "A", "year": "2001", "genre": ["Drama"], "actor": ["x", "x"]}}
            ),
        ),
    ],
)
def test_fuzzed_files_only_raise_crseval_errors(tmp_path_factory, data, name, seed):
    raw = seed.encode()
    op = data.draw(st.sampled_from(["truncate", "flip", "insert", "dup_line", "drop_line"]))
    pos = data.draw(st.integers(0, max(0, len(raw) - 1)))
    if op == "truncate":
        raw = raw[:pos]
    elif op == "flip":
        raw = raw[:pos] + bytes([data.draw(st.integers(0, 255))]) + raw[pos + 1 :]
    elif op == "insert":
        raw = raw[:pos] + data.draw(st.binary(min_size=1, max_size=20)) + raw[pos:]
    elif op == "dup_line":
        lines = raw.split(b"\n")
        raw = b"\n".join(lines + lines[-2:])
    else:
        lines = raw.split(b"\n")
        raw = b"\n".join(lines[: pos % max(1, len(lines))] + lines[pos % max(1, len(lines)) + 1 :])
    _fuzz(name, raw, tmp_path_factory)
