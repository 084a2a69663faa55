"""Run directories: config, signature, append-only records, tables, figures, report."""

from crseval.runs.store import RunStore
from crseval.runs.view import Run, load_run

__all__ = ["Run", "RunStore", "load_run"]
