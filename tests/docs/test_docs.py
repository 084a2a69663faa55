"""The documentation: a short README, every `crseval …` command line in it and in docs/ naming real
commands and options, the site built with warnings as errors and its generated references complete, and
the tutorial's code run as written."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from crseval.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGES = [p for p in PAGES if "_build" not in p.parts and not p.name.startswith("_")]


def command_lines(text: str) -> list[str]:
    """`crseval …` in fenced code (a `$ ` prompt and `\\` continuations allowed) and in inline code."""
    out, fenced = [], False
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            cmd = line.strip().removeprefix("$ ")
            while cmd.endswith("\\") and k + 1 < len(lines):
                k += 1
                cmd = cmd[:-1] + " " + lines[k].strip()
            if cmd.startswith("crseval "):
                out.append(cmd.split("  #")[0].split(" # ")[0])
        else:
            out += [m for m in re.findall(r"`(crseval [^`]+)`", line)]
    return out


def _tokens(line: str) -> list[str]:
    try:
        return shlex.split(line)[1:]
    except ValueError:  # an unbalanced quote in prose
        return line.split()[1:]


def problems(line: str) -> list[str]:
    """What in ``line`` is not a command or option of crseval's command tree."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    return _check(root, ctx, _tokens(line), line)


def _check(cmd, ctx, toks: list[str], line: str) -> list[str]:
    i = 0
    while hasattr(cmd, "list_commands") and i < len(toks):
        t = toks[i].strip("[]")
        if (
            t.startswith(("-", "<")) or t in ("…", "...") or t.isupper()
        ):  # an option or a placeholder
            break
        names = cmd.list_commands(ctx)
        alts = t.split("|")
        if all(a in names for a in alts):
            if len(alts) > 1:
                return [p for a in alts for p in _check(cmd, ctx, [a, *toks[i + 1 :]], line)]
            cmd, i = cmd.get_command(ctx, t), i + 1
            continue
        default = getattr(cmd, "default_command", None)
        if default is None:
            return [f"{line!r}: no command {t!r}"]
        cmd = cmd.get_command(ctx, default)
    known = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    out = []
    for t in toks[i:]:
        for a in t.strip("[]()").split("|"):
            name = a.split("=")[0].rstrip(",.;:)]")
            if name.startswith("--") and len(name) > 2 and name not in known:
                out.append(f"{line!r}: {cmd.name} has no option {name}")
    return out


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 300


def test_every_command_line_in_the_readme_and_docs_is_real():
    lines = [(p, line) for p in PAGES for line in command_lines(p.read_text(encoding="utf-8"))]
    assert len(lines) > 100  # the checker finds the documented commands
    bad = [f"{p.relative_to(ROOT)}: {x}" for p, line in lines for x in problems(line)]
    assert not bad, "\n".join(bad)


def test_the_checker_catches_a_wrong_command_and_a_wrong_option():
    assert problems("crseval shift run x.toml --known-groups") == []
    assert problems("crseval arena votes.csv --n-boot 10") == []  # a group's default command
    assert problems("crseval behavior train|run --help") == []
    assert problems("crseval shift walk x.toml")
    assert problems("crseval shift run x.toml --known-group")


@pytest.mark.slow  # builds the whole site (~1 min)
def test_the_site_builds_without_warnings_and_its_references_are_complete(tmp_path):
    from crseval.core.registry import all_metrics
    from crseval.data import DATASETS

    out = tmp_path / "html"
    res = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", ROOT / "docs", out],
        capture_output=True, text=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    metrics = (out / "reference" / "metrics.html").read_text()
    assert not [m for m in all_metrics() if m not in metrics]
    datasets = (out / "datasets.html").read_text()
    assert not [d for d in DATASETS if f">{d}<" not in datasets]
    cli = (out / "reference" / "cli.html").read_text()
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    paths = []
    for name in root.list_commands(ctx):
        sub = root.get_command(ctx, name)
        paths += [f"crseval {name} {s}" for s in getattr(sub, "list_commands", lambda c: [])(ctx)]
        paths.append(f"crseval {name}")
    assert not [p for p in paths if f'section id="{p.replace(" ", "-")}"' not in cli]


@pytest.mark.slow  # the tutorial's runs (~1 min)
def test_the_tutorial_runs_as_written(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "tutorial.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    scope: dict = {"__name__": "tutorial"}
    for block in blocks:
        exec(compile(block, "docs/tutorial.md", "exec"), scope)
    assert (tmp_path / "runs" / "card" / "report.html").is_file()


def test_the_benchmarks_page_is_generated_from_every_script_and_record(tmp_path):
    """Each script in bench/ records its results (bench/_record.py) and has a section; each record's
    command, machine, signature and tables appear, so no benchmark number is typed into the docs."""
    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    conf.benchmark_reference(ROOT / "bench", tmp_path / "benchmarks.md")
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    scripts = [p for p in sorted((ROOT / "bench").glob("*.py")) if not p.name.startswith("_")]
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        assert "record.run(" in text and "record.table(" in text, f"{script.name} records nothing"
        assert f"## `bench/{script.name}`" in page
    for path in sorted((ROOT / "bench" / "results").glob("*.json")):
        r = json.loads(path.read_text(encoding="utf-8"))
        assert (ROOT / "bench" / f"{r['bench']}.py").is_file(), f"{path.name}: no such script"
        assert r["machine"]["cores"] >= 1 and r["signature"]["crseval"] and r["tables"]
        assert r["command"] in page and r["signature"]["script"] in page
        assert all(t["title"] in page for t in r["tables"])


def test_every_guide_says_what_inputs_commands_outputs_how_to_read_and_limits():
    """One shape for every capability's guide, in this order, so a reader knows where to look."""
    shape = ["What it measures", "Inputs", "Commands", "Outputs", "How to read", "Known limits"]
    for page in sorted((ROOT / "docs" / "guides").glob("*.md")):
        heads = re.findall(r"(?m)^## (.+)$", page.read_text(encoding="utf-8"))
        found = [next((h for h in heads if h.startswith(s)), None) for s in shape]
        assert None not in found, f"{page.name}: missing {shape[found.index(None)]!r}"
        assert [heads.index(h) for h in found] == sorted(heads.index(h) for h in found), page.name
