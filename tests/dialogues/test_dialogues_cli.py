"""`crseval dialogues metrics` on ReDial (matcher precision on its @id mentions), the arena's dialogue layout,
session logs, other catalogues, and bad input."""

import json
import math

import pandas as pd
import pytest

from tests.support.cli import crseval


def test_redial_with_its_movie_table(shared, tmp_path):
    data, movies = shared("redial/test_data.jsonl"), shared("redial/movies_id2info.json")
    res = crseval(
        "dialogues",
        "metrics",
        str(data),
        "--catalog",
        str(movies),
        "--embeddings",
        "hashing",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    row = json.loads(res.stdout)["result"][0]
    assert row["system"] == "redial-human" and row["dialogues"] == 1342
    assert row["out_of_catalogue_rate"] < 0.01  # labelled @id mentions: 9 ids lack a table entry
    assert 0 < row["repetition_rate"] < 0.2 and row["first_rec_turn"] >= 1
    check = pd.read_csv(tmp_path / "r" / "tables" / "dialogue_matcher.csv").set_index("reading")
    assert (
        check.loc["title", "in_catalogue"] == 8512
    )  # every @id mention whose id is in the movie table
    assert (
        check.loc["title", "matcher_precision"] >= 0.985
        and check.loc["text", "matcher_precision"] >= 0.98
    )
    assert check.loc["text", "matcher_recall"] >= 0.97
    turns = pd.read_csv(tmp_path / "r" / "tables" / "dialogue_turns.csv")
    assert turns["recommendations"].sum() == row["recommendations"]


def test_the_arenas_dialogue_layout_with_satisfaction(tmp_path):
    replies = {
        "good": ["I'd suggest Inception (2010).", "Then try The Matrix (1999)."],
        "bad": ["Watch Starfall Legacy (2031)!", "Watch Starfall Legacy (2031) again!"],
    }
    convs = [
        {
            "conversation ID": f"{crs}_{k}",
            "agent": {"id": crs},
            "conversation": [
                {"participant": "USER", "utterance": "Any sci-fi?"},
                {"participant": "AGENT", "utterance": replies[crs][0]},
                {"participant": "USER", "utterance": "Not a fan, seen it."},
                {"participant": "AGENT", "utterance": replies[crs][k % 2]},
            ],
            "metadata": {"sentiment": "satisfied" if crs == "good" else "frustrated"},
        }
        for crs in replies
        for k in range(4)
    ]
    (tmp_path / "dial.json").write_text(json.dumps(convs))
    res = crseval(
        "dialogues",
        "metrics",
        str(tmp_path / "dial.json"),
        "--embeddings",
        "hashing",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    rows = {r["system"]: r for r in json.loads(res.stdout)["result"]}
    assert rows["good"]["out_of_catalogue_rate"] == 0 and rows["bad"]["out_of_catalogue_rate"] == 1
    assert (
        rows["bad"]["rejected_repeat_rate"] == 0.5
    )  # every second recommendation re-offers the rejected title
    metrics = pd.read_csv(tmp_path / "r" / "tables" / "dialogue_metrics.csv")
    assert set(metrics["satisfied"]) == {0.0, 1.0}
    corr = pd.read_csv(tmp_path / "r" / "tables" / "dialogue_label_correlation.csv")
    oc = corr[(corr["level"] == "dialogue") & (corr["metric"] == "out_of_catalogue_rate")].iloc[0]
    assert (
        oc["aspect"] == "satisfied" and oc["spearman_rho"] == pytest.approx(-1.0) and oc["n"] == 8
    )


def test_session_logs_and_a_movielens_catalogue(tmp_path):
    (tmp_path / "movies.csv").write_text(
        'movieId,title,genres\n1,"Matrix, The (1999)",Action|Sci-Fi\n'
        "2,Heat (1995),Action|Crime|Thriller\n"
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "s1.json").write_text(
        json.dumps(
            {
                "model_name": "m1",
                "conversation": [
                    {"speaker": "User", "text": "action please"},
                    {"speaker": "System", "text": "See The Matrix (1999) or Heat."},
                    {"speaker": "User", "text": "ok"},
                    {"speaker": "System", "text": "Also The Matrix (1999)."},
                ],
            }
        )
    )
    res = crseval(
        "dialogues",
        "metrics",
        str(logs),
        "--catalog",
        str(tmp_path / "movies.csv"),
        "--embeddings",
        "hashing",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    row = json.loads(res.stdout)["result"][0]
    assert (
        row["system"] == "m1"
        and row["recommendations"] == 3
        and row["repetition_rate"] == pytest.approx(1 / 3, abs=1e-3)
    )
    assert row["coverage"] == 1.0 and row["genre_diversity"] == pytest.approx(1 - 1 / 4, abs=1e-3)
    # popularity from another corpus: 2 dialogues, one names The Matrix → novelty by hand
    ref = tmp_path / "ref"
    ref.mkdir()
    for k, text in enumerate(["The Matrix (1999) then.", "No idea."]):
        (ref / f"r{k}.json").write_text(
            json.dumps(
                {
                    "model_name": "h",
                    "conversation": [
                        {"speaker": "User", "text": "hi"},
                        {"speaker": "System", "text": text},
                    ],
                }
            )
        )
    res = crseval(
        "dialogues",
        "metrics",
        str(logs),
        "--catalog",
        str(tmp_path / "movies.csv"),
        "--popularity",
        str(ref),
        "--embeddings",
        "hashing",
        "--out",
        str(tmp_path / "p"),
        "--format",
        "json",
    )
    bits = [-math.log2(2 / 3), -math.log2(1 / 3), -math.log2(2 / 3)]  # Matrix, Heat, Matrix
    assert json.loads(res.stdout)["result"][0]["novelty"] == pytest.approx(sum(bits) / 3, abs=1e-3)


def test_labelled_mentions_or_the_text(tmp_path):
    """ReDial marks '@1' only: labelled mode counts it alone, --mentions text also reads the unmarked title."""
    (tmp_path / "movies.csv").write_text(
        "movieId,title,genres\n1,Heat (1995),Crime\n2,Alien (1979),Horror\n"
    )
    (tmp_path / "d.jsonl").write_text(
        json.dumps(
            {
                "conversationId": "c1",
                "initiatorWorkerId": 1,
                "respondentWorkerId": 2,
                "movieMentions": {"1": "Heat (1995)"},
                "messages": [
                    {"text": "hi", "senderWorkerId": 1},
                    {"text": "Try @1 or Alien (1979)", "senderWorkerId": 2},
                ],
            }
        )
    )
    counts = {}
    for mode in ("auto", "text"):
        res = crseval(
            "dialogues",
            "metrics",
            str(tmp_path / "d.jsonl"),
            "--catalog",
            str(tmp_path / "movies.csv"),
            "--mentions",
            mode,
            "--embeddings",
            "hashing",
            "--out",
            str(tmp_path / mode),
            "--format",
            "json",
        )
        counts[mode] = json.loads(res.stdout)["result"][0]["recommendations"]
    assert counts == {"auto": 1, "text": 2}


@pytest.mark.parametrize(
    "args, words",
    [
        (["nowhere.jsonl"], "dialogues not found"),
        (["sample", "--catalog", "nowhere.json"], "catalogue not found"),
        (["sample", "--mentions", "labelled"], "does not label its mentions"),
        (["sample", "--min-score", "20"], "min_score"),
    ],
)
def test_bad_input(tmp_path, args, words):
    res = crseval("dialogues", "metrics", *args, "--out", str(tmp_path / "x"), check=False)
    assert res.returncode == 2 and words in res.stderr.lower() and "Traceback" not in res.stderr


def test_dialogues_without_a_system_turn(tmp_path):
    conv = [
        {
            "conversation ID": "x_1",
            "agent": {"id": "x"},
            "conversation": [{"participant": "USER", "utterance": "hi"}],
            "metadata": {"sentiment": "frustrated"},
        }
    ]
    (tmp_path / "d.json").write_text(json.dumps(conv))
    res = crseval(
        "dialogues", "metrics", str(tmp_path / "d.json"), "--out", str(tmp_path / "x"), check=False
    )
    assert res.returncode == 2 and "no system turns" in res.stderr


def test_a_file_that_is_no_catalogue(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps({"x": 1}))
    res = crseval(
        "dialogues",
        "metrics",
        "sample",
        "--catalog",
        str(tmp_path / "c.json"),
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert res.returncode == 2 and "not a movie catalogue" in res.stderr
