"""Every command's --format json output is strict JSON (no NaN or Infinity), parsed with a strict parser."""

import json
from pathlib import Path

from typer.testing import CliRunner

from crseval.cli.main import app

SAMPLE = Path(__file__).resolve().parents[2] / "crseval" / "data" / "sample"


def _strict(text: str):
    def refuse(token):
        raise ValueError(f"non-standard JSON constant {token}")

    return json.loads(text, parse_constant=refuse)


def _commands(tmp: Path, shared) -> list[list[str]]:
    ser = shared("serendipity/serendipity2018")
    return [
        ["metrics"],
        ["data", "list"],
        ["data", "inspect", "sample"],
        ["reliability", "power", "--k", "3", "--n", "50", "--icc", "0.3", "--r", "0.2"],
        ["reliability", "plan", "--icc", "0.2", "--width", "0.2"],
        [
            "reliability",
            str(SAMPLE / "ratings.csv"),
            "--item-col",
            "item",
            "--rater-col",
            "rater",
            "--out",
            str(tmp / "rel"),
        ],
        ["behavior", "explicit", "sample"],
        [
            "judge",
            "meta-eval",
            str(shared("judgments/ab_redial")),
            "--backend",
            "scripted",
            "--limit",
            "8",
            "--n-boot",
            "20",
            "--out",
            str(tmp / "judge"),
        ],
        [
            "serendipity",
            "meta-eval",
            str(ser),
            "--sample",
            "120",
            "--n-boot",
            "20",
            "--out",
            str(tmp / "ser"),
        ],
        ["llm", "chat", "hello", "--backend", "scripted", "--cache", str(tmp / "c.sqlite")],
        ["compare", str(tmp / "judge"), str(tmp / "judge")],
        ["arena", str(SAMPLE / "votes.csv"), "--n-boot", "20", "--out", str(tmp / "arena")],
        [
            "dialogues",
            "metrics",
            str(shared("judgments/ab_redial")),
            "--embeddings",
            "hashing",
            "--out",
            str(tmp / "dial"),
        ],
    ]


def test_every_command_prints_strict_json(tmp_path, shared):
    runner = CliRunner()
    for args in _commands(tmp_path, shared):
        res = runner.invoke(app, [*args, "--format", "json"])
        assert res.exit_code == 0, (args, res.output)
        _strict(res.stdout)  # raises on NaN / Infinity or anything that is not one JSON document


def test_nan_becomes_null():
    import math

    from crseval.cli.output import dumps

    assert _strict(dumps({"a": float("nan"), "b": [math.inf], "c": 1.5})) == {
        "a": None,
        "b": [None],
        "c": 1.5,
    }
