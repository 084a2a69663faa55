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
import os
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Sequence

import pandas as pd
from pydantic import BaseModel

from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Part, Progress, Result, no_progress
from crseval.core.output import Output
from crseval.core.signature import content_hash

if TYPE_CHECKING:
    from crseval.llm import LLMClient, LLMConfig
    from crseval.runs.context import RunContext
    from crseval.runs.store import RunStore


class _Jobs(Mapping):
    """Job name → "module:ATTRIBUTE", from the capabilities' declarations (read on first use) and
    the demo."""

    def _all(self) -> dict[str, str]:
        from crseval.core.capability import all_capabilities

        jobs = {j: job.target for c in all_capabilities().values() for j, job in c.jobs.items()}
        return {
            **jobs,
            "demo": "crseval.demo:JOB",
            "evaluate-crs": "crseval.card.job:JOB",
            "shift.known-groups": "crseval.card.known_groups:JOB",
            "criterion": "crseval.card.criterion:JOB",
        }

    def __getitem__(self, name: str) -> str:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


JOBS: Mapping[str, str] = _Jobs()


def get_job(name: str) -> JobSpec:
    if name not in JOBS:
        raise CrsevalError(
            f"unknown job {name!r}", field="job", expected="one of " + ", ".join(JOBS)
        )
    module, attr = JOBS[name].split(":")
    return getattr(importlib.import_module(module), attr)


def context(
    store: RunStore,
    progress: Progress = no_progress,
    manifest: Sequence[Part] = (),
    inputs: Mapping[str, Result] = MappingProxyType({}),
) -> RunContext:
    """What a job is handed of ``store``'s run: its streams, LLM clients, artifacts, log and progress;
    for a job built from others, its manifest and the runner of its parts; for a part, the results of
    the parts it needs."""
    from crseval.runs.context import RunContext

    return RunContext(
        store,
        progress,
        tuple(manifest),
        partial(run_parts, store),
        _client,
        MappingProxyType(dict(inputs)),
    )


def _client(config: LLMConfig, cache: str, role: str) -> LLMClient:
    from crseval.llm import make_client

    return make_client(config, cache, role=role)


def execute(
    job: JobSpec,
    config: BaseModel,
    out: str | Path | None = None,
    progress: Progress = no_progress,
    inputs: Mapping[str, Result] = MappingProxyType({}),
) -> Result:
    """Run a validated config into its run directory and (re)write the run's report. The run directory's
    writer lock is taken before the job runs and held until its report is written. ``inputs``: a part's
    results of the parts it needs, whose records are its input data (:func:`_provenance`)."""
    from crseval.core.user_output import to_log
    from crseval.llm.usage import collecting
    from crseval.plotting import figure_formats
    from crseval.report.html import write_report
    from crseval.runs import RunStore
    from crseval.runs.writer import write_output

    figure_formats()  # a bad CRSEVAL_FIGURES is refused before any work, not at the first figure
    store = RunStore(out or run_directory(job, config))
    store.begin(_provenance(job, config, inputs), revise=_retrying(config))
    manifest = tuple(job.parts(config)) if job.parts else ()
    ctx = context(store, progress, manifest, inputs)
    store.hold()
    try:
        with collecting() as clients, to_log(store.log):  # what a CRS prints: the run's log
            output = job.run(config, ctx)
        if clients:
            _add_usage(output, clients)
        output.notes += _rough_cis(config)
        result = write_output(store, job.name, config, output)
        result.report = write_report(store.root, job.report_title)
    finally:
        store.close()
    written = load_run(store.root)
    result.tables, result.records = written.tables, written.records  # read when asked for
    result.read_json, result.digest = written.json, content_hash(store.root)
    return result


def _provenance(job: JobSpec, config: BaseModel, inputs: Mapping[str, Result]) -> dict[str, Any]:
    """The run's config.json record; a part's input data includes each part it needs, by the content of
    its records — so the part's signature names what it read, and it runs again when that changed."""
    from crseval.runs.provenance import provenance

    record = provenance(job.name, config)
    record["data"] |= {f"needs.{name}": f"{name}@{r.digest}" for name, r in inputs.items()}
    return record


def run_parts(
    store: RunStore, manifest: Sequence[Part], progress: Progress
) -> Iterator[tuple[Part, Result]]:
    """Run each part of a job built from others into its folder under ``store``'s (through :func:`execute`:
    each part resumes by itself and keeps its own report), with the part's name before every progress
    line, yielding it with its result as soon as it is done. A part whose input is another part that has
    since run again (``--retry-failed``) is computed again from it. Each part is handed the results of the
    parts it needs (``Part.needs``) in memory. The embedded model stays loaded from the first part that
    uses it to the last (:func:`crseval.llm.llamacpp.held`): a manifest loads it once."""
    import shutil

    from crseval.core.config import validate
    from crseval.llm.llamacpp import held
    from crseval.runs.revisions import stale

    done: dict[str, Result] = {}
    with held():
        for part in manifest:
            job = get_job(part.job)
            config, folder = validate(job.config, part.config), store.path(*part.name.split("/"))
            inputs = {name: done[name] for name in part.needs}
            if part.needs and stale(folder, _provenance(job, config, inputs)):
                store.log(
                    f"NOTE {part.name}: a part it reads ran again (or an earlier crseval recorded "
                    "it otherwise); computed again from it"
                )
                shutil.rmtree(folder)

            def labelled(title: str, total: int, name: str = part.name) -> Any:
                return progress(f"{name}: {title}", total)

            done[part.name] = execute(job, config, folder, labelled, inputs)
            yield part, done[part.name]


def run_directory(job: JobSpec, config: BaseModel, default: str | Path | None = None) -> Path:
    """Where a run of ``config`` goes when no ``out`` is given: ``default`` (the job's default folder,
    ``runs/arena``), or ``runs/arena-2``, ``-3``, … where that holds a run of another configuration or other
    data — the one that holds this configuration's run, so the same command resumes it."""
    from crseval.runs.provenance import provenance
    from crseval.runs.store import free_directory

    base = Path(default) if default is not None else job.default_out(config)
    return free_directory(base, provenance(job.name, config), _retrying(config))


def _retrying(config: BaseModel) -> bool:
    """``--retry-failed``: a CRS's fixed code may differ from the run's (a revision, not another run)."""
    return bool(getattr(config, "retry_failed", False))


def _rough_cis(config: BaseModel) -> list[str]:
    """A note where a run's CIs rest on fewer than 100 bootstrap resamples (0 is no CI: no note)."""
    n = getattr(config, "n_boot", None)
    if isinstance(n, int) and 0 < n < 100:
        return [
            f"n_boot = {n}: every bootstrap CI of this run rests on {n} resamples — rough, and its ends "
            "move with the seed; use 1,000 or more for figures you report"
        ]
    return []


def _add_usage(output: Output, clients) -> None:
    """The run's ``llm_usage`` table and its report section."""
    from crseval.llm.usage import usage_table

    output.table("llm_usage", usage_table(clients))
    output.section(
        "LLM usage",
        "What this run asked of its LLMs, per role: requests that reached the backend (retries included), "
        "cache hits, failures, tokens, seconds inside calls and, where the LLM config gives prices per "
        "million tokens (price_input, price_output), the cost.",
        tables=["llm_usage"],
    )


def rerun(
    run: str | Path, out: str | Path | None = None, progress: Progress = no_progress
) -> Result:
    """Run again what ``run``'s config.json records (same job, same validated config, relative paths read
    from the directory the first run was started in) into ``out`` (default: ``RUN-rerun``)."""
    import contextlib

    from crseval.core.config import validate
    from crseval.runs import RunStore

    source = RunStore(run)
    if not source.root.is_dir():
        raise CrsevalError(
            "run directory not found", file=source.root, fix="pass a folder written by crseval"
        )
    record = source.read_json("config.json")
    if not isinstance(record, dict) or not {"job", "config"} <= set(record):
        raise CrsevalError(
            "config.json does not record a job and its configuration",
            file=source.path("config.json"),
            fix="runs written before crseval recorded provenance cannot be rerun",
        )
    spec = get_job(str(record["job"]))
    target = Path(out).resolve() if out else source.root.with_name(source.root.name + "-rerun")
    if target == source.root:
        raise CrsevalError(
            "rerun writes into a new directory", field="--out", fix="choose another folder"
        )
    where = Path(record.get("cwd") or ".")
    with contextlib.chdir(where if where.is_dir() else Path.cwd()):
        config = validate(spec.config, record["config"], file=source.path("config.json"))
        return execute(spec, config, target, progress)


def plan(job: JobSpec, config: BaseModel, out: str | Path | None = None):
    """The LLM calls ``job`` would make into ``out`` and how many its cache already holds — the job runs once
    in a scratch copy of the run directory with recording stand-ins for every LLM (nothing is called, the
    run directory is not touched). Returns a :class:`crseval.llm.planning.Plan`."""
    from crseval.llm.planning import Plan

    total = Plan()
    for _, recorder in _recorded(job, config, Path(out or run_directory(job, config))):
        backend = next(iter(recorder.plan.by_model), "scripted/").split("/")[0]
        total += recorder.finish(backend)
    return total


def batch_export(job: JobSpec, config: BaseModel, file: str | Path, out: str | Path | None = None):
    """Write the LLM requests the run into ``out`` still needs, and can already ask, as an OpenAI Batch
    file (``custom_id`` = the request's cache key); call nothing. Requests whose prompt depends on an
    answer not yet in the cache come in a later round (export again after ``crseval llm batch-import``).
    Returns a :class:`crseval.llm.batch.Export` (requests written, requests left out, round)."""
    from crseval.llm.batch import write_export

    root = Path(out or run_directory(job, config))
    return write_export(_recorded(job, config, root, export=True), root, Path(file))


def _recorded(job: JobSpec, config: BaseModel, real: Path, export: bool = False) -> list:
    """(part, recorder) for the job — one per LLM-using part of a job built from others — each after a
    planning run of it in a scratch copy of its run directory."""
    import shutil
    import tempfile

    from crseval.core.config import validate
    from crseval.llm.planning import PlanComplete, planning
    from crseval.runs import RunStore

    if job.parts is not None:
        out = []
        for part in job.parts(config):
            spec = get_job(part.job)
            cfg = validate(spec.config, part.config)
            if spec.uses_llm is not None and spec.uses_llm(cfg):
                sub = _recorded(spec, cfg, real.joinpath(*part.name.split("/")), export)
                out += [(f"{part.name}/{name}".rstrip("/"), rec) for name, rec in sub]
        return out
    with tempfile.TemporaryDirectory(prefix="crseval-plan-") as tmp:
        scratch = Path(tmp) / "run"
        if (real / "records").is_dir():  # resumed work is not planned again
            shutil.copytree(real / "records", scratch / "records")
        with planning(real / "llm_cache.sqlite", export) as recorder:
            store = RunStore(scratch)
            try:
                job.run(config, context(store))
            except PlanComplete:  # the job has made its last LLM call
                pass
            except Exception:  # exporting: the run cannot go on without the answers it waits for
                if not (export and recorder.pending):
                    raise
            finally:
                store.close()
    if export and recorder.cache is not None:  # a plan's recorder closes it in finish()
        recorder.cache.close()
    return [("", recorder)]


def evaluate(
    job: str,
    config: BaseModel | dict[str, Any] | str | Path | None = None,
    *,
    out: str | Path | None = None,
    progress: Progress = no_progress,
    **fields: Any,
) -> Result:
    """Run job ``job`` (see ``JOBS``). ``config``: the job's config model, a dict of its fields or a TOML
    file; keyword ``fields`` override single fields. Returns the job's :class:`~crseval.core.job.Result`
    with every table in ``result.tables``. With ``out`` the run directory is kept there (resumable, with
    its report); with ``out=None`` the job runs in a temporary folder that is removed afterwards —
    nothing is left on disk, the tables come back in memory (``run_dir`` and ``report`` are None)."""
    import tempfile

    from crseval.core.config import load_config, validate

    spec = get_job(job)
    if isinstance(config, (str, Path)):
        config = load_config(config, spec.config)
    values = config.model_dump() if isinstance(config, BaseModel) else dict(config or {})
    validated = validate(spec.config, _paths_as_text({**values, **fields}))
    if out is not None:
        return execute(spec, validated, out, progress)
    with tempfile.TemporaryDirectory(prefix="crseval-") as tmp:
        result = execute(spec, validated, Path(tmp) / "run", progress)
        result.tables = dict(result.tables)  # read before the folder goes
    result.run_dir = result.report = None
    return result


def _paths_as_text(value: Any) -> Any:
    """``Path`` objects as the text a config's path fields hold, in lists and tables too (a field typed as a
    list of files took only ``str``)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_paths_as_text(v) for v in value)
    if isinstance(value, dict):
        return {k: _paths_as_text(v) for k, v in value.items()}
    return value


def compare(
    runs: Sequence[str | Path],
    table: str | None = None,
    metrics: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Shared per-item metrics of two or more runs with bootstrap CIs and tests (see crseval.report.compare);
    ``systems``: one system per run where a table holds several (``crseval compare --systems``)."""
    from crseval.report.compare import compare as compare_runs

    return compare_runs([Path(r) for r in runs], table, metrics, systems=systems).table


def load_run(path: str | Path):
    """A run directory, read-only (:class:`crseval.runs.view.Run`)."""
    from crseval.runs.view import load_run as load

    return load(path)
