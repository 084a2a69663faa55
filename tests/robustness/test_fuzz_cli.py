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


WRONG_KIND = {  # files of another kind than any command expects, and folders holding nothing
    "missing.csv": None,
    "a-list.json": b"[1, 2]\n",
    "an-object.json": b'{"a": 1}\n',
    "two-columns.csv": b"a,b\n1,2\n",
    "half-json.jsonl": b'{"x": 1}\nnot json\n',
    "empty-folder": None,
}
NOT_A_FILE = {"demo", "evaluate-crs", "llm chat", "reliability power", "reliability plan"}


def _commands() -> list[tuple[list[str], int]]:
    """Every command of the CLI that reads a file or folder given first, and how many it takes."""
    import typer

    cmd = typer.main.get_command(app)
    out = []

    def walk(c, path, ctx):
        if hasattr(c, "list_commands"):
            for n in c.list_commands(ctx):
                sub = c.get_command(ctx, n)
                walk(sub, [*path, n], type(ctx)(sub, parent=ctx))
        elif " ".join(path) not in NOT_A_FILE:
            args = [p for p in c.params if type(p).__name__.endswith("Argument")]
            if args:
                out.append((path, len(args)))

    walk(cmd, [], cmd.make_context("crseval", [], resilient_parsing=True))
    return out


def test_a_file_of_the_wrong_kind_through_every_command(tmp_path, monkeypatch):
    """A JSON list, an object, a CSV of other columns, a half-JSON file, an empty folder, a missing path
    through every command that reads one (found from the CLI, so a new command is covered): exit 2 with
    one line, never "unexpected error" — a ReDial line that was a list crashed `dialogues reactions`, and
    `report` wrote into an empty folder (exit 0)."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for name, data in WRONG_KIND.items():
        if name == "empty-folder":
            (tmp_path / name).mkdir()
        elif data is not None:
            (tmp_path / name).write_bytes(data)
    commands = _commands()
    assert len(commands) >= 20  # the walk found the CLI's commands
    for path, n in commands:
        for name in WRONG_KIND:
            extra = (
                ["--item-col", "a", "--rater-col", "b"]
                if path == ["reliability", "analyze"]
                else []
            )
            extra += ["--run", "empty-folder"] if path == ["llm", "batch-import"] else []
            res = runner.invoke(app, [*path, *[name] * n, *extra])
            assert res.exit_code == 2, (path, name, res.exit_code, res.output[-400:])
            _assert_clean(res, f"{' '.join(path)} {name}")
    assert not (tmp_path / "empty-folder" / "report.html").exists()
