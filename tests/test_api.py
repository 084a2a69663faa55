"""The public verbs: evaluate runs any job from a config (object, dict or TOML), compare and load_run read runs."""

import pandas as pd
import pytest

import crseval
from crseval.core.errors import CrsevalError

RATINGS = "item,rater,q\n" + "".join(
    f"i{i},r{r},{1 + (i + r) % 5 if r else 1 + i % 5}\n" for i in range(12) for r in range(4)
)


def test_the_api_is_a_few_verbs_and_no_name_shadows_a_subpackage():
    import crseval.report.compare  # noqa: F401 — the subpackage is importable, not hidden by a function

    assert {"evaluate", "compare", "load_run", "load_dataset", "write_report"} <= set(
        crseval.__all__
    )
    assert not hasattr(crseval, "report") or isinstance(crseval.report, type(crseval))


def test_evaluate_runs_a_job_and_load_run_reads_it_back(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text(RATINGS)
    res = crseval.evaluate(
        "reliability",
        {"ratings": f, "item_col": "item", "rater_col": "rater"},
        n_boot=0,
        out=tmp_path / "run",
    )
    assert list(res.summary["dimension"]) == ["q"]
    assert res.report.name == "report.html"
    run = crseval.load_run(tmp_path / "run")
    assert isinstance(run.tables["reliability"], pd.DataFrame)
    assert run.tables["reliability"].loc[0, "icc1"] == pytest.approx(
        res.summary.loc[0, "icc1"], abs=1e-3
    )
    assert run.signature["data"].startswith("r@")


def test_evaluate_reads_a_toml_config_and_validates_fields(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text(RATINGS)
    toml = tmp_path / "job.toml"
    toml.write_text(f'ratings = "{f}"\nitem_col = "item"\nrater_col = "rater"\nn_boot = 0\n')
    assert len(crseval.evaluate("reliability", toml, out=tmp_path / "a").summary) == 1
    with pytest.raises(CrsevalError, match="n_boot"):
        crseval.evaluate("reliability", toml, n_boot=-1, out=tmp_path / "b")
    with pytest.raises(CrsevalError, match="unknown job"):
        crseval.evaluate("nope")


def test_path_objects_are_taken_wherever_a_path_goes_lists_included(tmp_path):
    from crseval.data.bundled import sample_dir

    votes = [sample_dir() / "votes.csv"]
    res = crseval.evaluate("arena", votes=votes, n_boot=20, out=tmp_path / "run")
    assert len(res.summary) and crseval.load_run(tmp_path / "run").config["config"]["votes"] == [
        str(sample_dir() / "votes.csv")
    ]


@pytest.mark.parametrize("n_boot,rough", [(20, True), (0, False), (100, False)])
def test_a_run_says_when_its_cis_rest_on_few_resamples(tmp_path, n_boot, rough):
    """Fewer than 100 resamples make a CI whose ends move with the seed: the run says so beside its
    results (0 asks for no CI, and gets no note)."""
    res = crseval.evaluate("arena", votes=["sample"], n_boot=n_boot, out=tmp_path / "run")
    says = [n for n in res.notes if n.startswith(f"n_boot = {n_boot}:")]
    assert bool(says) == rough


def test_compare_two_runs(tmp_path):
    for name, shift in (("a", 0), ("b", 1)):
        f = tmp_path / f"{name}.csv"
        f.write_text(RATINGS.replace(",1\n", f",{1 + shift}\n"))
        crseval.evaluate(
            "reliability",
            ratings=f,
            item_col="item",
            rater_col="rater",
            n_boot=0,
            out=tmp_path / name,
        )
    table = crseval.compare([tmp_path / "a", tmp_path / "b"])
    assert "icc1" in set(table["metric"])
    assert "n_items" not in set(table["metric"])  # counts are context, not compared


def test_evaluate_without_out_returns_every_table_and_leaves_nothing_on_disk(tmp_path, monkeypatch):
    import tempfile

    f = tmp_path / "r.csv"
    f.write_text(RATINGS)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.rglob("*"))
    res = crseval.evaluate("reliability", ratings=f, item_col="item", rater_col="rater", n_boot=0)
    assert res.run_dir is None and res.report is None
    assert set(tmp_path.rglob("*")) == before  # no run directory, the temporary folder is gone
    assert {"reliability", "reliability_qc"} <= set(res.tables)
    kept = crseval.evaluate(
        "reliability", ratings=f, item_col="item", rater_col="rater", n_boot=0, out=tmp_path / "run"
    )
    assert res.tables["reliability"].equals(
        kept.tables["reliability"]
    )  # the same numbers as a kept run


def test_a_plan_ends_at_the_jobs_last_llm_call(tmp_path, monkeypatch):
    """The plan a CLI prints before a judge fit counts its LLM calls and fits nothing: the job stops at
    `done_calling` (the fit on stand-in answers cost minutes and could not read stand-in states)."""
    import crseval.judge.fit as fit
    from crseval.api import get_job, plan
    from crseval.core.config import validate
    from tests.judge.test_judge_cli import _labelled

    data = _labelled(tmp_path / "d.json", n=30)
    monkeypatch.setattr(fit, "_fit", lambda *a, **k: pytest.fail("a plan fitted the judge"))
    job = get_job("judge.fit")
    config = validate(job.config, {"data": [str(data)], "llm": {"backend": "scripted"}})
    made = plan(job, config, tmp_path / "run")
    assert (made.calls, made.cached) == (30, 0)
    assert not (tmp_path / "run").exists()


def test_evaluate_takes_a_function_as_the_crs(tmp_path):
    """A notebook user passes the function itself: config.json records module:qualname, and the run's
    input fingerprint follows the function's source (an edited function is refused on resume)."""
    import json

    def respond(history):
        return "How about Heat (1995)? It is a crime thriller."

    shift = dict(sessions=1, turns=3, judge={"enabled": False}, out=tmp_path / "run")
    mine = {"name": "mine", "kind": "callable"}
    res = crseval.evaluate("shift.run", models=[{**mine, "target": respond}], **shift)
    assert list(res.summary["system"]) == ["mine"]
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    target = config["config"]["models"][0]["target"]
    assert target.endswith(":test_evaluate_takes_a_function_as_the_crs.<locals>.respond")
    assert config["data"]["models.0.target"].startswith(
        "test_evaluate_takes_a_function_as_the_crs.<locals>.respond@"
    )

    def respond(history):  # noqa: F811 — the same name, edited
        return "How about Alien (1979)?"

    with pytest.raises(CrsevalError, match="models.0.target"):
        crseval.evaluate("shift.run", models=[{**mine, "target": respond}], **shift)


def test_behavior_run_takes_a_function_as_the_system():
    from crseval.behavior.job import RunConfig
    from crseval.core.config import validate
    from crseval.simulation.plugins import load_callable

    def system(history):
        return "Have you seen Heat?"

    config = validate(RunConfig, {"data": "sample", "system": system})
    assert config.system.endswith(".<locals>.system")
    assert load_callable(config.system) is system
    assert config.data_files()["system"].startswith(
        "test_behavior_run_takes_a_function_as_the_system.<locals>.system@"
    )


def test_the_report_card_takes_a_function_and_plans_its_parts(tmp_path):
    """`evaluate-crs` from Python: a function as the CRS; its plan is the sum of its LLM parts' plans (the
    LLM CRS's sessions and judgments, the LLM's answers to the labelled contexts)."""
    from crseval.api import get_job, plan
    from crseval.core.config import validate

    def respond(history):
        return "How about Heat? It is a crime thriller."

    small = dict(sessions=4, turns=4, llm_sessions=2, llm_turns=3, llm_contexts=1, n_boot=100)
    job = get_job("evaluate-crs")
    config = validate(job.config, {"target": respond, "llm": {"backend": "scripted"}, **small})
    made = plan(job, config, tmp_path / "card")
    assert made.calls > 2 * 3 and not (tmp_path / "card").exists()
    res = crseval.evaluate(
        "evaluate-crs", target=respond, no_llm=True, out=tmp_path / "run", **small
    )
    assert res.summary.columns[0] == "label" and "respond" in res.summary.columns


def test_a_function_of_the_script_being_run_names_the_card_after_the_script(monkeypatch):
    """The README's Python example run as a script failed: its `respond` lives in `__main__`, and the
    name "__main__" is no system name ("String should match pattern …" from inside the card's parts)."""
    import sys
    import types

    from crseval.card.config import target_name

    main = types.ModuleType("__main__")
    main.__file__ = "/home/me/try_my_crs.py"
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert target_name("__main__:respond") == "try_my_crs"
    assert target_name("__main__:my_recommender") == "my_recommender"
    del main.__file__  # a notebook's or a REPL's
    assert target_name("__main__:respond") == "crs"
    assert target_name("_private:respond") == "private"
