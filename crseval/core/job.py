"""The one shape every capability's job has: ``run(config, ctx) -> Output``.

``config`` is a pydantic model declared once per job (fields, defaults, validation, help text: the CLI
builds its options from it, TOML files and the Python API validate against it); ``ctx`` is what the job
is handed of its run (:class:`crseval.runs.context.RunContext`: its record streams, for resuming, its LLM
clients, its own files, its log and progress — never the run directory or its tables, which the runner
writes); ``ctx.progress(description, total)`` returns an ``advance(n)`` callback. A job computes and returns an
:class:`crseval.core.output.Output` — its tables, figures, report sections and the signature fields it
resolved — which the runner (``crseval/api.py: execute``) writes, checks, signs and reports as the job's
:class:`Result`. The CLI, the demo and :func:`crseval.evaluate` only parse and dispatch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from pydantic import BaseModel

from crseval.core.signature import format_signature

Advance = Callable[..., None]
Progress = Callable[[str, int], Advance]


def no_progress(description: str, total: int) -> Advance:
    return lambda n=1: None


@dataclass
class Result:
    """What a run gives back: the headline table, further tables worth showing, every table it wrote
    (``tables``: name → DataFrame) and its records, the signature, where the run directory and report are
    (None for ``crseval.evaluate(..., out=None)``, which keeps no run directory), and notes the user should
    read. A job built from others reads its parts through their Results, never their files."""

    job: str
    title: str
    summary: pd.DataFrame
    signature: dict[str, Any]
    run_dir: Path | None
    details: dict[str, pd.DataFrame] = field(default_factory=dict)
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    report: Path | None = None
    failures: str = (
        ""  # what failed (a CRS, a plug-in, an LLM call) — non-empty makes the CLI exit 1
    )
    # the run's records of a stream (``records/STREAM.jsonl``) and a JSON file it kept (``scoring.json``,
    # ``config.json``: None where it has none), read when a job built from this one asks for them
    records: Callable[[str], list[dict[str, Any]]] = field(default=lambda stream: [], repr=False)
    read_json: Callable[[str], Any] = field(default=lambda name: None, repr=False)
    digest: str = (
        ""  # a hash of the run's records: what a part that needs this one records as its input
    )

    @property
    def signature_line(self) -> str:
        return format_signature(self.signature)


@dataclass(frozen=True)
class Part:
    """One (job, config) of a job built from others, run into ``name`` under its run directory. ``needs``
    names the earlier parts whose :class:`Result` it reads: the runner hands them over in memory
    (``ctx.inputs``), never their folders, and runs the part again when one of them has changed."""

    name: str
    job: str
    config: dict[str, Any]
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class JobSpec:
    """A job: its config model, its ``run`` function, where its run directory goes by default and the
    title of its report. ``default_out`` is a path, or a function of the config for names that depend on
    the input (``runs/reliability-crs-que``)."""

    name: str
    config: type[BaseModel]
    run: Callable[[Any, Any], Any]  # (config, RunContext) → crseval.core.output.Output
    default: str | Callable[[Any], Path]
    help: str
    report_title: str
    uses_llm: Callable[[Any], bool] | None = (
        None  # whether a config of this job calls an LLM (None: never)
    )
    can_fail: bool = False  # results may record failures (the CLI offers --keep-going)
    # cheap checks of what the config names (a plug-in's import) run before the plan, so that --dry-run
    # and the plan fail on them at once, in one line
    check: Callable[[Any], None] | None = None
    # a job built from others: its manifest for a config (planned part by part)
    parts: Callable[[Any], list[Part]] | None = None

    def default_out(self, config: BaseModel) -> Path:
        return Path(self.default(config)) if callable(self.default) else Path(self.default)

    @property
    def out_help(self) -> str:
        """The --out help's default: the folder, and its numbered sibling where it holds another run."""
        where = (
            "a folder under runs/ named for the input" if callable(self.default) else self.default
        )
        return f"{where}; -2, -3, … beside it where it holds a run of another configuration"
