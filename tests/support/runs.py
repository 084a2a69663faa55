"""What a run directory promises its reader."""

from __future__ import annotations

from pathlib import Path

from crseval.runs.store import RunStore
from crseval.runs.view import entries


def listed_figures(run: str | Path) -> set[str]:
    """The figures the run's report sections name (written as files unless ``CRSEVAL_FIGURES=none``)."""
    return {name for s in RunStore(run).sections() for name, _ in entries(s, "figures")}
