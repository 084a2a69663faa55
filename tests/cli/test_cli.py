"""The command line as a user meets it: the top-level commands, run in process."""

import json
from pathlib import Path

import pytest

from tests.support.cli import FIGURES, crseval
from tests.support.runs import listed_figures


def test_data_inspect_sample_json():
    out = crseval("data", "inspect", "sample", "--format", "json")
    data = json.loads(out.stdout)
    assert data["summary"]["dialogues"]["dialogues"] == 8
    assert data["summary"]["movies"]["items"] == 36


def test_data_inspect_real_file_prints_counts_and_notes(shared):
    out = crseval(
        "data", "inspect", "opendialkg-movies", str(shared("opendialkg/opendialkg_movie_data.json"))
    )
    assert "2164" in out.stdout
    assert "non-genre values" in out.stderr


def test_bad_input_is_one_line_not_a_traceback(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text(
        "dialog_id\tutt_id\tspeaker\tturn_id\ttext\texpert_label\nd1\t1\tRECOMMENDER\t1\thi\tbribery\n"
    )
    out = crseval("data", "inspect", "inspired", str(p), check=False)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "bad.tsv:2" in out.stderr
    assert "expert_label" in out.stderr


@pytest.mark.parametrize(
    "argv,says",
    [
        (["report", "{empty}"], "not a crseval run"),
        (["report", "{file}"], "is a file, not a run directory"),
        (["behavior", "meta", "{file}"], "field 'ideal': required, not given — pass --ideal"),
        (["criterion", "{file}"], "field 'catalog': required, not given — pass --catalog"),
        (["dialogues", "reactions", "{file}"], "record is list (expected a JSON object)"),
        (["shift", "validate", "{file}"], "is a file, not a run directory"),
    ],
)
def test_bad_input_found_by_a_sweep_of_every_command(tmp_path, argv, says):
    """Each was once a traceback, a misleading line or a report written into an empty folder."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "x.json").write_text("[1, 2]\n")
    paths = {"{empty}": str(tmp_path / "empty"), "{file}": str(tmp_path / "x.json")}
    out = crseval(*[paths.get(a, a) for a in argv], check=False)
    assert out.returncode == 2
    assert says in " ".join(out.stderr.split())
    assert not (tmp_path / "empty" / "report.html").exists()


@pytest.mark.parametrize(
    "fmt,marker",
    [("csv", "name,kind,description"), ("markdown", "| name |"), ("latex", "\\begin{tabular}")],
)
def test_machine_readable_formats(fmt, marker):
    assert marker in crseval("data", "list", "--format", fmt).stdout


def test_llm_chat_shows_cache_hit_on_repeat(tmp_path):
    args = [
        "llm",
        "chat",
        "hello there",
        "--backend",
        "scripted",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--format",
        "json",
    ]
    first, second = json.loads(crseval(*args).stdout), json.loads(crseval(*args).stdout)
    assert first["cache"] == "miss"
    assert second["cache"] == "hit"
    assert first["reply"] == second["reply"]


def test_llm_chat_rate_and_config_file(tmp_path):
    cfg = tmp_path / "llm.toml"
    cfg.write_text('backend = "scripted"\nmodel = "from-config"\n')
    out = json.loads(
        crseval(
            "llm",
            "chat",
            "How good is Heat?",
            "--config",
            str(cfg),
            "--rate",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--format",
            "json",
        ).stdout
    )
    assert out["model"] == "from-config"
    assert out["method"] == "expected"
    assert 1 <= float(out["reply"]) <= 5
    assert abs(sum(out["probs"].values()) - 1) < 1e-9


@pytest.mark.slow  # the whole demo three times (fresh, rerun, resumed) and its LaTeX: ~1.5 min
def test_demo_with_scripted_backend_writes_a_report(tmp_path, monkeypatch):
    """Also the suite's check that every capability's figures are written (other tests lay them out only)."""
    out = crseval("demo", "--backend", "scripted", "--out", str(tmp_path / "demo"), env=FIGURES)
    assert "report:" in out.stdout
    assert (
        "Report card: my_crs" in out.stdout
    )  # the bundled example CRS's card is the demo's headline
    assert (
        "Warning" not in out.stdout + out.stderr
    )  # e.g. scikit-learn's fold warnings reached the terminal
    run = tmp_path / "demo"
    for f in ["report.html", "signature.json", "config.json", "tables/card.csv"]:
        assert (run / f).exists(), f
    # one part per capability, each a run of its own that the demo's report links to
    parts = (
        "shift shift-llm dialogues behavior/my_crs behavior/llm validity judge reliability".split()
    )
    parts += ["serendipity", "arena"]
    report = (run / "report.html").read_text()
    for part in parts:
        assert (run / part / "report.html").is_file(), part
        assert f"href='{part}/report.html'" in report, part
    for part in [".", *parts]:
        _every_report_column_is_described(run / part)
        for name in listed_figures(run / part):
            assert (run / part / "figures" / f"{name}.png").is_file(), (part, name)
    # the same job again from its config.json: every table identical
    assert "every table identical" in crseval("rerun", str(run)).stderr
    crseval("report", str(run), "--latex")
    assert "\\input{card}" in (run / "paper" / "main.tex").read_text()
    assert "\\includegraphics" in (run / "paper" / "main.tex").read_text()
    # a second run resumes: nothing new is asked of the model
    judged = run / "judge" / "records" / "judgments.jsonl"
    assert len(judged.read_text().splitlines()) == 8
    before = {p: p.stat().st_mtime_ns for p in run.rglob("records/*.jsonl")}
    again = crseval("demo", "--backend", "scripted", "--out", str(run), "--dry-run")
    assert "no LLM calls to make" in again.stdout + again.stderr
    crseval("demo", "--backend", "scripted", "--out", str(run))
    assert {p: p.stat().st_mtime_ns for p in run.rglob("records/*.jsonl")} == before
    # --fresh starts over: the run directory is gone when the demo's job starts (running it a third time
    # would show nothing more)
    import crseval.cli.main as cli

    seen = []
    monkeypatch.setattr(cli, "run_job", lambda job, config, out, *a, **k: seen.append(out.exists()))
    crseval("demo", "--backend", "scripted", "--out", str(run), "--fresh")
    assert seen == [False]


def _every_report_column_is_described(run):
    """A reader of the report finds every column of every table in the glossary."""
    import pandas as pd

    from crseval.core.glossary import describe
    from crseval.runs.store import RunStore
    from crseval.runs.view import entries

    sections = RunStore(run).sections()
    names = [n for s in sections for n, _ in entries(s, "tables")] + [
        s["drill"]["table"] for s in sections if "drill" in s
    ]
    assert names, run
    undescribed = {
        (n, c)
        for n in names
        for c in pd.read_csv(run / "tables" / f"{n}.csv").columns
        if not describe(c, n)[1]
    }
    assert not undescribed
    assert all(caption for s in sections for _, caption in entries(s, "figures"))


def test_metrics_are_listed_from_the_registry():
    rows = json.loads(crseval("metrics", "--format", "json").stdout)
    names = {r["metric"] for r in rows}
    reliability = {"icc1", "icc1_k", "rel_k", "rel_single", "alpha_ordinal", "alpha_interval"}
    assert {f"reliability.{m}" for m in reliability} <= names
    # qualified names keep two capabilities' `pearson` apart, each with the tables that hold it
    by_name = {r["metric"]: r for r in rows}
    assert "meta_eval" in by_name["judge.pearson"]["tables"]
    assert by_name["arena.pearson"]["tables"] == "arena_agreement"


def test_compare_writes_markdown_and_latex(tmp_path):
    import pandas as pd

    from crseval.runs import RunStore

    for name, v in [("A", 0.2), ("B", 0.7)]:
        RunStore(tmp_path / name).write_table(
            "judge_item_scores",
            pd.DataFrame(
                {
                    "item": [f"s{i}" for i in range(6)],
                    "aspect": "overall",
                    "judge": "llm",
                    "score": [v + 0.01 * i for i in range(6)],
                }
            ),
        )
    crseval("compare", str(tmp_path / "A"), str(tmp_path / "B"), "--out", str(tmp_path / "cmp"))
    assert "**0.725**" in (tmp_path / "cmp" / "compare.md").read_text()
    assert "\\textbf{0.725}" in (tmp_path / "cmp" / "compare.tex").read_text()
    res = crseval("compare", str(tmp_path / "A"), check=False)
    assert res.returncode == 2
    assert "at least two runs" in res.stderr


def test_a_second_configuration_without_out_goes_beside_the_first_and_each_resumes_its_own(
    tmp_path, monkeypatch
):
    """Without --out, every command used one folder per job (runs/arena): the guide's second line
    (other votes) was refused as "a different configuration". It now goes to runs/arena-2, says so in
    one line once it has run, and the first command run again finds its own folder."""
    monkeypatch.chdir(tmp_path)
    for name, rows in (("a.csv", "x,y,x\nx,y,y\nx,y,x\n"), ("b.csv", "x,y,y\nx,y,y\nx,y,x\n")):
        Path(name).write_text("crs1,crs2,vote\n" + rows)

    def votes_in(folder):
        return json.loads((Path("runs") / folder / "config.json").read_text())["config"]["votes"]

    first = crseval("arena", "rank", "a.csv", "--n-boot", "0")
    assert "another configuration" not in first.stderr and votes_in("arena") == ["a.csv"]
    second = crseval("arena", "rank", "b.csv", "--n-boot", "0")
    assert "runs/arena holds a run of another configuration: this one is in runs/arena-2" in (
        second.stderr
    )
    assert votes_in("arena-2") == ["b.csv"]
    again = crseval("arena", "rank", "a.csv", "--n-boot", "0")
    assert "another configuration" not in again.stderr
    assert sorted(p.name for p in Path("runs").iterdir()) == ["arena", "arena-2"]
    explicit = crseval(
        "arena", "rank", "b.csv", "--n-boot", "5", "--out", "runs/arena", check=False
    )
    assert (
        explicit.returncode == 2 and "different configuration" in explicit.stderr
    )  # named: refused
    refused = crseval("arena", "rank", "missing.csv", check=False)  # bad input: its error alone
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
