"""The public verbs: ``evaluate`` runs any job, ``compare`` sets runs side by side, ``load_run`` reads a
run directory back (read-only, tables as DataFrames). ``crseval.load_dataset`` and
``crseval.write_report`` complete the set.

    import crseval
    result = crseval.evaluate("reliability", ratings="annotations.csv", preset="crs-que", out="runs/rel")
    result.summary                                   # the headline table (a DataFrame)
    run = crseval.load_run("runs/rel")
    run.tables["reliability"]                        # every table of the run
    crseval.compare(["runs/a", "runs/b"])            # shared per-item metrics, tests, best marked
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from pydantic import BaseModel

from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Progress, Result, no_progress

JOBS = {
    "behavior.train": "crseval.behavior.train_job:TRAIN",
    "behavior.run": "crseval.behavior.job:RUN",
    "behavior.tag": "crseval.behavior.job:TAG",
    "behavior.meta": "crseval.behavior.job:META",
    "behavior.eval": "crseval.behavior.reuse:EVAL",
    "shift.run": "crseval.adaptation.job:RUN",
    "shift.score": "crseval.adaptation.job:SCORE",
    "shift.validate": "crseval.adaptation.validate:VALIDATE",
    "judge.meta-eval": "crseval.judge.job:JOB",
    "judge.fit": "crseval.judge.fit:JOB",
    "reliability": "crseval.reliability.job:JOB",
    "serendipity.meta-eval": "crseval.serendipity.job:JOB",
    "serendipity.reproduce": "crseval.serendipity.reproduce:JOB",
    "arena": "crseval.arena.job:JOB",
    "dialogues.metrics": "crseval.dialogues.job:JOB",
    "demo": "crseval.demo:JOB",
}


def get_job(name: str) -> JobSpec:
    if name not in JOBS:
        raise CrsevalError(f"unknown job {name!r}", field="job", expected="one of " + ", ".join(JOBS))
    module, attr = JOBS[name].split(":")
    return getattr(importlib.import_module(module), attr)


def execute(job: JobSpec, config: BaseModel, out: str | Path | None = None,
            progress: Progress = no_progress) -> Result:
    """Run a validated config into its run directory and (re)write the run's report."""
    from crseval.report.html import write_report
    from crseval.runs import RunStore
    store = RunStore(out or job.default_out(config))
    try:
        result = job.run(config, store, progress)
    finally:
        store.close()
    result.report = write_report(store.root, job.report_title)
    return result


def plan(job: JobSpec, config: BaseModel, out: str | Path | None = None):
    """The LLM calls ``job`` would make into ``out`` and how many its cache already holds — the job runs once
    in a scratch copy of the run directory with recording stand-ins for every LLM (nothing is called, the
    run directory is not touched). Returns a :class:`crseval.llm.planning.Plan`."""
    import shutil
    import tempfile

    from crseval.llm.planning import planning
    from crseval.runs import RunStore
    real = Path(out or job.default_out(config))
    with tempfile.TemporaryDirectory(prefix="crseval-plan-") as tmp:
        scratch = Path(tmp) / "run"
        if (real / "records").is_dir():  # resumed work is not planned again
            shutil.copytree(real / "records", scratch / "records")
        if (real / "config.json").is_file():
            scratch.mkdir(exist_ok=True)
            shutil.copy(real / "config.json", scratch / "config.json")
        with planning(real / "llm_cache.sqlite") as recorder:
            store = RunStore(scratch)
            try:
                job.run(config, store, no_progress)
            finally:
                store.close()
        backend = next(iter(recorder.plan.by_model), "scripted/").split("/")[0]
        return recorder.finish(backend)


def evaluate(job: str, config: BaseModel | dict[str, Any] | str | Path | None = None, *,
             out: str | Path | None = None, progress: Progress = no_progress, **fields: Any) -> Result:
    """Run job ``job`` (see ``JOBS``). ``config``: the job's config model, a dict of its fields or a TOML
    file; keyword ``fields`` override single fields. Returns the job's :class:`~crseval.core.job.Result`."""
    from crseval.core.config import load_config, validate
    spec = get_job(job)
    if isinstance(config, (str, Path)):
        config = load_config(config, spec.config)
    values = config.model_dump() if isinstance(config, BaseModel) else dict(config or {})
    return execute(spec, validate(spec.config, {**values, **fields}), out, progress)


def compare(runs: Sequence[str | Path], table: str | None = None, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Shared per-item metrics of two or more runs with bootstrap CIs and tests (see crseval.report.compare)."""
    from crseval.report.compare import compare as compare_runs
    return compare_runs([Path(r) for r in runs], table, metrics).table


def load_run(path: str | Path):
    """A run directory, read-only (:class:`crseval.runs.view.Run`)."""
    from crseval.runs.view import load_run as load
    return load(path)
