"""A job is handed a typed, frozen context: its streams, LLM clients, artifacts, log and progress — never
the run directory, its tables or its lock (issue #95)."""

import dataclasses

import pandas as pd
import pytest
from pydantic import BaseModel

from crseval.api import execute
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.runs.context import RunContext
from crseval.runs.writer_lock import _HELD


class Nothing(BaseModel):
    pass


def _job(run) -> JobSpec:
    return JobSpec("test.job", Nothing, run, "runs/test", "a test job", "Test")


@pytest.mark.parametrize(
    "name", ["root", "path", "writable", "write_table", "add_section", "figure_path", "close"]
)
def test_the_run_directory_and_the_runners_writers_are_out_of_a_jobs_reach(tmp_path, name):
    def reaches(config, ctx):
        getattr(ctx, name)
        return Output("x")

    with pytest.raises(AttributeError):
        execute(_job(reaches), Nothing(), tmp_path / "run")
    assert not hasattr(RunContext, "__getattr__")


def test_what_a_job_returns_the_runner_writes_and_its_records_and_artifacts_stay(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("CRSEVAL_STRICT_TABLES", raising=False)  # a table no capability declares
    seen = []

    def returns(config, ctx):
        assert [r["v"] for r in ctx.stream("items").run([("a", 1)], lambda v: {"v": v})] == [1]
        ctx.artifact("model", "weights.json").write_text("{}")
        ctx.log("a line")
        with pytest.raises(dataclasses.FrozenInstanceError):
            ctx.progress = None  # nor does it change what it was handed
        seen.append(ctx.provenance["job"])
        return Output("x", tables={"items": pd.DataFrame({"v": [1]})}, signature={"data": "none"})

    execute(_job(returns), Nothing(), tmp_path / "run")
    run = tmp_path / "run"
    assert pd.read_csv(run / "tables" / "items.csv")["v"].tolist() == [1]
    assert (run / "records" / "items.jsonl").read_text().count("\n") == 1
    assert (run / "model" / "weights.json").exists() and "a line" in (run / "run.log").read_text()
    assert seen == ["test.job"]


def test_the_writer_lock_is_held_until_the_report_is_written(tmp_path, monkeypatch):
    import crseval.report.html as html

    monkeypatch.delenv("CRSEVAL_STRICT_TABLES", raising=False)
    held_while_reporting = []
    write_report = html.write_report

    def watching(run_dir, title=None):
        held_while_reporting.append(any(p == (tmp_path / "run").resolve() for p in _HELD))
        return write_report(run_dir, title)

    monkeypatch.setattr(html, "write_report", watching)
    execute(
        _job(lambda config, ctx: Output("x", signature={"data": "none"})),
        Nothing(),
        tmp_path / "run",
    )
    assert held_while_reporting == [True]
    assert (tmp_path / "run").resolve() not in _HELD  # (other tests' open stores may hold theirs)


class Count(BaseModel):
    n: int = 1


def test_a_part_is_handed_the_results_it_needs_and_runs_again_when_they_change(
    tmp_path, monkeypatch
):
    """Issue #95: a step gets the Results it needs, never another part's folder; its provenance names
    what it read, by content, so a changed input part computes it again instead of refusing."""
    import json

    import crseval.api as api
    from crseval.core.job import Part

    seen = []

    def sessions(config, ctx):
        ctx.stream("results").run([(str(i), i) for i in range(config.n)], lambda i: {"i": i})
        return Output("sessions", signature={"data": "none"})

    def reads(config, ctx):
        ((name, result),) = ctx.inputs.items()
        seen.append((name, len(result.records("results"))))
        return Output("reads", signature={"data": "none"})

    jobs = {"t.sessions": JobSpec("t.sessions", Count, sessions, "x", "", ""),
            "t.reads": JobSpec("t.reads", Nothing, reads, "x", "", "")}  # fmt: skip
    monkeypatch.setattr(api, "get_job", jobs.__getitem__)

    def manifest(n):
        parts = [
            Part("sessions", "t.sessions", {"n": n}),
            Part("reads", "t.reads", {}, ("sessions",)),
        ]
        return JobSpec(
            "t.card", Nothing, lambda c, ctx: _run_all(ctx), "x", "", "", parts=lambda c: parts
        )

    def _run_all(ctx):
        list(ctx.run_parts())
        return Output("card", signature={"data": "none"})

    execute(manifest(2), Nothing(), tmp_path / "run")
    record = json.loads((tmp_path / "run" / "reads" / "config.json").read_text())
    assert record["config"] == {} and set(record["data"]) == {"needs.sessions"}
    assert record["data"]["needs.sessions"].startswith("sessions@")
    execute(manifest(2), Nothing(), tmp_path / "run")  # resumed: the same input, not refused
    with pytest.raises(Exception, match="different"):  # the input part itself is another run
        execute(manifest(3), Nothing(), tmp_path / "run")
    assert seen == [("sessions", 2), ("sessions", 2)]
    (tmp_path / "run" / "sessions" / "records" / "results.jsonl").open("a").write('{"key": "9"}\n')
    execute(manifest(2), Nothing(), tmp_path / "run")  # its input changed: computed again from it
    assert seen[-1] == ("sessions", 3)
    assert "computed again from it" in (tmp_path / "run" / "run.log").read_text()
    reads = tmp_path / "run" / "reads" / "config.json"  # as an earlier crseval recorded it
    reads.write_text(reads.read_text().replace('"needs.sessions"', '"data.0"'))
    execute(manifest(2), Nothing(), tmp_path / "run")  # derived: computed again, not refused
    assert len(seen) == 4 and "needs.sessions" in reads.read_text()


def test_the_runner_locks_before_the_job_runs_and_a_refused_input_leaves_nothing(tmp_path):
    """Issue #95: the runner takes the writer lock explicitly, before the job; a job that refuses its input
    before writing leaves no folder behind, not even the parents made for the lock."""
    from crseval.core.errors import CrsevalError

    run = tmp_path / "runs" / "deep" / "run"
    held_at_start = []

    def starts(config, ctx):
        held_at_start.append(run.resolve() in _HELD)
        return Output("x", signature={"data": "none"})

    execute(_job(starts), Nothing(), run)
    assert held_at_start == [True] and run.resolve() not in _HELD

    def refuses(config, ctx):
        raise CrsevalError("not a dataset", fix="pass one")

    other = tmp_path / "new" / "run"
    with pytest.raises(CrsevalError, match="not a dataset"):
        execute(_job(refuses), Nothing(), other)
    assert not (tmp_path / "new").exists() and other.resolve() not in _HELD
