"""Every file-reading command, driven through the CLI with broken versions of a valid input (truncated,
garbage bytes, an overlong line, a number turned into text, a deleted or duplicated line, empty): each
ends with exit 0 or the one-line error (exit 2) — never a traceback, never "unexpected error"."""

import json
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import crseval.core.files as files
from crseval.cli.main import app
from crseval.data.bundled import sample_dir
from crseval.llm import llamacpp
from crseval.llm.scripted import ScriptedBackend

SAMPLE = sample_dir()


def _mutations(data: bytes, rng: random.Random) -> dict[str, bytes]:
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    cut = rng.randrange(1, max(2, len(data)))
    pos = rng.randrange(len(data))
    return {
        "truncated": data[:cut],
        "garbage": data[:pos] + bytes(rng.randrange(256) for _ in range(40)) + data[pos:],
        "overlong line": data + b"\n" + b"x" * (files.MAX_LINE_BYTES + 10) + b"\n",
        "number as text": data.replace(b"4", b"four", 3).replace(b": 1", b': "one"', 2),
        "line deleted": b"\n".join(lines[:k] + lines[k + 1 :]),
        "line duplicated": b"\n".join(lines[: k + 1] + lines[k:]),
        "empty": b"",
        "binary": bytes(range(256)) * 4,
    }


def _inputs(tmp: Path) -> dict[str, tuple[str, bytes, list[str]]]:
    """name → (file name, valid content, command using {file})."""
    dialogues = json.loads((SAMPLE / "dialogues.json").read_text())
    judged = [
        {
            "conv_id": d["id"],
            "dial_level_aggregated": {"overall": 1 + i % 4},
            "dialogue": [
                {"role": u["role"].upper(), "utterance": u["text"]} for u in d["utterances"]
            ],
        }
        for i, d in enumerate(dialogues)
    ]
    log = {
        "model_name": "m",
        "true_genre": "comedy",
        "conversation": [
            {"speaker": "User", "text": "a comedy please"},
            {"speaker": "System", "text": "Try Superbad (2007)."},
            {"speaker": "User", "text": "something older"},
            {"speaker": "System", "text": "How about Airplane!?"},
        ],
    }
    responses = "".join(
        json.dumps({"dialogue": "s01", "turn": t, "response": "What do you like?"}) + "\n"
        for t in range(5)
    )
    toml = 'sessions = 1\nturns = 2\nn_boot = 10\n[[models]]\nname = "t"\nkind = "template"\n[judge]\nenabled = false\n'
    return {
        "ratings": (
            "r.csv",
            (SAMPLE / "ratings.csv").read_bytes(),
            [
                "reliability",
                "{file}",
                "--item-col",
                "item",
                "--rater-col",
                "rater",
                "--n-boot",
                "0",
            ],
        ),
        "labels": (
            "labels.csv",
            b"dialogue,turn,strategy\ns01,0,opinion_inquiry\ns01,1,credibility\n",
            ["behavior", "explicit", "sample", "--labels", "{file}"],
        ),
        "responses": (
            "resp.jsonl",
            responses.encode(),
            ["behavior", "run", "sample", "--responses", "{file}"],
        ),
        "judged": (
            "judged.json",
            json.dumps(judged).encode(),
            ["judge", "meta-eval", "{file}", "--backend", "scripted", "--n-boot", "10"],
        ),
        "log": (
            "log.json",
            json.dumps(log).encode(),
            ["shift", "score", "{file}", "--kb", "sample", "--n-boot", "10"],
        ),
        "shift config": ("shift.toml", toml.encode(), ["shift", "run", "{file}"]),
        "llm config": (
            "llm.toml",
            b'backend = "scripted"\n',
            ["llm", "chat", "hi", "--config", "{file}"],
        ),
        "panel": (
            "panel.toml",
            b'[[judges]]\nname = "a"\n[judges.llm]\nbackend = "scripted"\n',
            [
                "judge",
                "meta-eval",
                str(tmp / "judged-ok.json"),
                "--panel",
                "{file}",
                "--n-boot",
                "10",
            ],
        ),
        "movies": (
            "movies.json",
            (SAMPLE / "movies.json").read_bytes(),
            ["data", "inspect", "opendialkg-movies", "{file}"],
        ),
    }


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 5000)


def _help(runner, cmd) -> str:
    words = [
        a for a in cmd if not a.startswith("{") and not a.startswith("/") and not a.startswith("-")
    ][:2]
    return runner.invoke(app, [*words, "--help"], env={"COLUMNS": "200"}).output


def _assert_clean(res, what):
    assert res.exit_code in (0, 2), (what, res.exit_code, res.output[-800:])
    assert "Traceback" not in res.output, what
    assert "unexpected error" not in res.output, what


INPUTS = list(_inputs(Path(".")))


@pytest.mark.parametrize("name", INPUTS)  # a test per input: the workers share the ~15 s
def test_broken_inputs_through_every_file_reading_command(tmp_path, small_limit, monkeypatch, name):
    monkeypatch.chdir(tmp_path)  # default run directories land here
    # the files are under test, not the model: a config that lost its backend line (the default, the
    # embedded model) is answered by the scripted backend instead of loading the model (5 s)
    monkeypatch.setattr(llamacpp, "LlamaCppBackend", lambda *a, **k: ScriptedBackend())
    runner, rng = CliRunner(), random.Random(f"7-{name}")
    inputs = _inputs(tmp_path)
    (tmp_path / "judged-ok.json").write_bytes(inputs["judged"][1])
    fname, valid, cmd = inputs[name]
    for kind, data in _mutations(valid, rng).items():
        path = tmp_path / f"{kind.replace(' ', '_')}-{fname}"
        path.write_bytes(data)
        args = (
            [a.replace("{file}", str(path)) for a in cmd]
            + ["--out", str(tmp_path / "runs" / name / kind)]
            if "--out" in _help(runner, cmd)
            else [a.replace("{file}", str(path)) for a in cmd]
        )
        _assert_clean(runner.invoke(app, args), f"{name} / {kind}")


def test_broken_run_directories_through_compare_and_report(tmp_path, small_limit):
    runner, rng = CliRunner(), random.Random(3)
    good = tmp_path / "good"
    res = runner.invoke(
        app,
        [
            "reliability",
            str(SAMPLE / "ratings.csv"),
            "--item-col",
            "item",
            "--rater-col",
            "rater",
            "--n-boot",
            "0",
            "--out",
            str(good),
        ],
    )
    assert res.exit_code == 0, res.output
    for target in ("tables/reliability.csv", "report_sections.json", "signature.json"):
        for kind, data in _mutations((good / target).read_bytes(), rng).items():
            bad = tmp_path / f"bad-{kind.replace(' ', '_')}-{target.replace('/', '_')}"
            shutil.copytree(good, bad)
            (bad / target).write_bytes(data)
            _assert_clean(
                runner.invoke(app, ["compare", str(good), str(bad)]), f"compare {target} {kind}"
            )
            _assert_clean(runner.invoke(app, ["report", str(bad)]), f"report {target} {kind}")
    _assert_clean(
        runner.invoke(app, ["compare", str(good), str(good / "signature.json")]), "compare a file"
    )
