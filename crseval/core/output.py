"""What a job computes, held in memory: its tables, figures, report sections and the signature fields it
resolved at run time (the data's content hash, an LLM's identity, a trained model's). A job fills one
:class:`Output` and returns it; the runner (``crseval/runs/writer.py: write_output``) checks every table
against its declaration, writes tables and figures, signs the run (the identity from config.json, the
config fields marked ``signed``, then what the job resolved) and builds the report sections, captioning
each table with its declared description. The job writes nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from pydantic import BaseModel


@dataclass(frozen=True)
class Figure:
    draw: Callable[[Path], object]  # draws the figure into the path it is given
    caption: str  # what the figure shows


@dataclass(frozen=True)
class Section:
    title: str
    text: str = ""
    tables: tuple[str, ...] = ()  # captioned with their declared descriptions
    figures: tuple[str, ...] = ()
    drill: dict[str, Any] | None = (
        None  # see crseval.runs.store.RunStore.add_section (the runner's)
    )


@dataclass
class Output:
    """A job's computed results. ``tables`` keeps the order they were added in; a table too large to hold
    at once may be an iterable of DataFrames (written part by part). ``paper``: tables also written as
    Markdown and LaTeX. ``signature``: what the job resolved at run time (``data``, ``llm``, ``model``,
    ``metric``: the method, …) — the config's fields come from the config itself."""

    title: str = ""  # the headline table's title
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    tables: dict[str, pd.DataFrame | Iterable[pd.DataFrame]] = field(default_factory=dict)
    paper: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)
    signature: dict[str, Any] = field(default_factory=dict)
    details: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    failures: str = ""  # non-empty makes the CLI exit 1

    def table(self, name: str, df: pd.DataFrame) -> pd.DataFrame:
        self.tables[name] = df
        return df

    def figure(self, name: str, draw: Callable[[Path], object], caption: str) -> None:
        self.figures[name] = Figure(draw, caption)

    def section(
        self,
        title: str,
        text: str = "",
        tables: Iterable[str] = (),
        figures: Iterable[str] = (),
        drill: dict[str, Any] | None = None,
    ) -> None:
        """A report section (one of the same title is replaced). Tables and figures not written are left
        out, so a section can name what a run only sometimes has."""
        self.sections = [s for s in self.sections if s.title != title]
        self.sections.append(Section(title, text, tuple(tables), tuple(figures), drill))

    def add(self, part: Output) -> Output:
        """``part``'s tables, paper tables, figures, sections, details and notes after this output's own (a
        section of the same title replaced); the title, headline, signature and failures stay this one's."""
        self.tables.update(part.tables)
        self.paper.update(part.paper)
        self.figures.update(part.figures)
        for s in part.sections:
            self.section(s.title, s.text, s.tables, s.figures, s.drill)
        self.details.update(part.details)
        self.notes += part.notes
        return self


def signed(config: BaseModel) -> dict[str, Any]:
    """The config's fields marked ``json_schema_extra={"signed": True}``, by name: the settings a reader of
    the signature line needs to see (the config hash in front covers every field)."""
    out = {}
    for name, info in type(config).model_fields.items():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and extra.get("signed"):
            value = getattr(config, name)
            out[name] = str(value) if isinstance(value, Path) else value
    return out
