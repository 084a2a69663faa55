"""What a job is handed of its run directory: its records (streams, for resuming), its LLM cache, its own
files (a fitted judge, a pair model, ``scoring.json``), paths and the log — never the tables, figures,
report sections or signature. Those the runner writes from the :class:`~crseval.core.output.Output` the
job returns (:func:`crseval.runs.writer.write_output`), so "a job writes no table" holds by construction,
not by convention."""

from __future__ import annotations

from typing import Any

from crseval.runs.store import RunStore

RUNNER_ONLY = frozenset(
    {
        "begin",
        "close",
        "save_signature",
        "write_table",
        "write_table_parts",
        "write_paper_table",
        "add_section",
        "figure_path",
    }
)


class JobStore:
    """A :class:`RunStore` as a job sees it: every attribute but :data:`RUNNER_ONLY`, which raise."""

    def __init__(self, store: RunStore) -> None:
        object.__setattr__(self, "_store", store)

    def __getattr__(self, name: str) -> Any:
        if name in RUNNER_ONLY:
            raise AttributeError(
                f"a job does not call {name}(): it returns its tables, figures and sections in its "
                "Output, and the runner writes them"
            )
        return getattr(object.__getattribute__(self, "_store"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a job does not set the run directory's {name}")
