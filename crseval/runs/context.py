"""What a job is handed of its run: a typed, frozen context, never the run directory.

A job reads and writes its work through named things — its record streams (resumable), its LLM clients
(which share the run's cache), :meth:`RunContext.artifact` (the one writable path: a fitted judge, a pair
model, ``scoring.json``), its log, progress and cancellation. A job built from others also has its
manifest and the runner of its parts; a part has the results of the earlier parts it needs (``inputs``).
It has no root, no ``path`` and no way to write a table, figure or report section: those the runner writes
from the :class:`~crseval.core.output.Output` the job returns (:func:`crseval.runs.writer.write_output`),
so "a job writes no table" holds by construction.

The runner (:func:`crseval.api.execute`) takes the run directory's writer lock before the job runs and
releases it after the report is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Sequence

from crseval.core import cancel
from crseval.core.job import Part, Progress, Result, no_progress
from crseval.runs.store import RunStore
from crseval.runs.stream import Stream

RunParts = Callable[[Sequence[Part], Progress], Iterator[tuple[Part, Result]]]
# (an LLMConfig, the cache's path, a role) → an LLMClient: crseval.llm sits beside this layer, not below
Clients = Callable[[Any, str, str], Any]


def _no_parts(manifest: Sequence[Part], progress: Progress) -> Iterator[tuple[Part, Result]]:
    raise RuntimeError("this job has no parts: only a job built from others runs a manifest")


def _no_clients(config: Any, cache: str, role: str) -> Any:
    raise RuntimeError(
        "this context has no LLM clients: the runner (crseval.api.context) gives them"
    )


@dataclass(frozen=True, eq=False)
class RunContext:
    """A job's run, as the job sees it (see the module's docstring)."""

    _store: RunStore = field(repr=False)
    progress: Progress = no_progress
    manifest: tuple[
        Part, ...
    ] = ()  # a job built from others: its parts, as its JobSpec declares them
    _run_parts: RunParts = field(default=_no_parts, repr=False)
    _clients: Clients = field(
        default=_no_clients, repr=False
    )  # crseval.llm's (a layer beside this)
    # a part of a job built from others: the Results of the earlier parts it needs (Part.needs), by name
    inputs: Mapping[str, Result] = field(default_factory=lambda: MappingProxyType({}))

    def stream(self, name: str) -> Stream:
        """The run's records of ``name`` (``records/<name>.jsonl``), with resumable work over them."""
        return self._store.stream(name)

    def artifact(self, *parts: str) -> Path:
        """The one path a job writes itself (its parent folders made): a file the run keeps beside its
        tables — a fitted judge, a model, an input split for a part."""
        return self._store.writable(*parts)

    def write_json(self, name: str, obj: Any) -> Path:
        """An artifact written as JSON, replaced at once (an interruption leaves the old or the new)."""
        return self._store.write_json(name, obj)

    def read_json(self, name: str) -> Any:
        """An artifact written by :meth:`write_json` (an earlier, interrupted run's)."""
        return self._store.read_json(name)

    @property
    def llm_cache(self) -> str:
        """The run's LLM cache, for the clients of workers in other processes (:meth:`llm` in this one)."""
        return str(self._store.cache_path)

    def llm(self, config: Any, role: str) -> Any:
        """A client of ``config``'s LLM answering as ``role``, sharing the run's cache; the runner counts
        its usage."""
        return self._clients(config, self.llm_cache, role)

    @property
    def provenance(self) -> dict[str, Any]:
        """The run's config.json record: job, configuration, input data and their versions."""
        return dict(self._store.provenance or {})

    def log(self, message: str) -> None:
        """A line of the run's ``run.log``."""
        self._store.log(message)

    @property
    def log_name(self) -> str:
        """How a message names the run's log (``runs/shift/run.log``)."""
        return str(self._store.root / "run.log")

    @staticmethod
    def cancelled() -> bool:
        """The user asked to stop (Ctrl-C): finish the unit at hand, then return."""
        return cancel.cancelled()

    def run_parts(self, manifest: Sequence[Part] | None = None) -> Iterator[tuple[Part, Result]]:
        """Run ``manifest`` (the job's own without) part by part, each into its folder under this run,
        yielding each part with its result as soon as it is done."""
        return self._run_parts(self.manifest if manifest is None else manifest, self.progress)
