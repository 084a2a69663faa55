"""The runner's half of a job: what a job computed (:class:`crseval.core.output.Output`) written into its
run directory — tables checked against their declarations (CSV + Parquet; ``paper`` tables also as Markdown
and LaTeX), figures drawn, the signature built and saved, the report sections recorded with each table
captioned by its declared description — and handed back as the job's :class:`crseval.core.job.Result`."""

from __future__ import annotations

import pandas as pd
from pydantic import BaseModel

from crseval.core.job import Result
from crseval.core.output import Output, signed
from crseval.core.registry import get_table
from crseval.core.signature import make_signature
from crseval.runs.store import RunStore


def caption(table: str) -> str:
    """A table's declared description as a caption (its name where it has none)."""
    spec = get_table(table)
    text = spec.description if spec is not None and spec.description else table
    return text[:1].upper() + text[1:]


def write_output(store: RunStore, job: str, config: BaseModel, output: Output) -> Result:
    for name, table in output.tables.items():
        if isinstance(table, pd.DataFrame):
            store.write_table(name, table)
        else:
            store.write_table_parts(name, table)
    for name, table in output.paper.items():
        store.write_paper_table(name, table)
    for name, figure in output.figures.items():
        figure.draw(store.figure_path(name))
    written = set(output.tables) | set(output.paper)
    for s in output.sections:
        store.add_section(
            s.title,
            s.text,
            tables=[(t, caption(t)) for t in s.tables if t in written],
            figures=[(f, output.figures[f].caption) for f in s.figures if f in output.figures],
            drill=s.drill,
        )
    fields = {**output.signature, **signed(config)}
    signature = store.save_signature(make_signature(**fields))
    return Result(
        job,
        output.title,
        output.summary,
        signature,
        store.root,
        details=output.details,
        notes=output.notes,
        failures=output.failures,
    )
