"""Run directories: config, signature, append-only records, tables, figures, report."""
from crseval.runs.store import RunStore

__all__ = ["RunStore"]
