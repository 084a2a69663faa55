"""Metrics and result tables registered by name (the ir-measures idea: meaning declared once, found by name).

A **metric** declares its name (the column name in every result table), a display label, a one-line
description, whether higher is better, its parameters with defaults and, where it differs from a
published definition, a note saying how. A **table** declares its id columns (what identifies an item,
so runs can be paired) and which of its columns are metrics. The CLI, configs, reports, ``compare`` and
the evaluator lists look both up here instead of keeping lists of their own.

Capabilities declare their metrics in a ``metrics.py`` module of their own (no heavy imports);
:func:`all_metrics` imports those modules on first use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Iterable

from crseval.core.errors import CrsevalError


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str
    label: str = ""
    higher_is_better: bool | None = True  # None: a count or a quantity with no better direction
    params: dict[str, Any] = field(default_factory=dict)
    capability: str = "general"
    role: str = "metric"  # "metric", or a capability-specific role such as "baseline" / "evaluator"
    note: str = ""  # how the definition differs from the published one, if it does

    @property
    def display(self) -> str:
        return self.label or self.name

    def signature(self, **overrides: Any) -> str:
        params = {**self.params, **overrides}
        inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
        return f"{self.name}({inner})"


@dataclass(frozen=True)
class TableSpec:
    """A result table: ``ids`` identify a row (runs are paired on them); every other column that is a
    registered metric holds metric values, the rest is context (text, labels, CI bounds)."""

    name: str
    ids: tuple[str, ...]
    description: str
    capability: str = "general"
    headline: tuple[
        str, ...
    ] = ()  # the columns a reader needs first (the rest stays one click away)


METRICS: dict[str, MetricSpec] = {}
TABLES: dict[str, TableSpec] = {}

CAPABILITY_MODULES = (
    "crseval.behavior.metrics",
    "crseval.adaptation.metrics",
    "crseval.reliability.metrics",
    "crseval.judge.metrics",
    "crseval.serendipity.metrics",
    "crseval.arena.metrics",
    "crseval.dialogues.metrics",
)


def register_metric(
    name: str,
    description: str,
    *,
    label: str = "",
    higher_is_better: bool | None = True,
    capability: str = "general",
    role: str = "metric",
    note: str = "",
    params: dict[str, Any] | None = None,
) -> MetricSpec:
    spec = MetricSpec(
        name, description, label, higher_is_better, dict(params or {}), capability, role, note
    )
    if name in METRICS and METRICS[name] != spec:
        raise CrsevalError(f"metric {name!r} registered twice with different definitions")
    METRICS[name] = spec
    return spec


def register_table(
    name: str,
    ids: Iterable[str],
    description: str,
    *,
    capability: str = "general",
    headline: Iterable[str] = (),
) -> TableSpec:
    spec = TableSpec(name, tuple(ids), description, capability, tuple(headline))
    TABLES[name] = spec
    return spec


def _load() -> None:
    for module in CAPABILITY_MODULES:
        importlib.import_module(module)


def all_metrics() -> dict[str, MetricSpec]:
    """Every registered metric, after importing the modules that declare them."""
    _load()
    return dict(sorted(METRICS.items()))


def all_tables() -> dict[str, TableSpec]:
    _load()
    return dict(sorted(TABLES.items()))


def get_metric(name: str) -> MetricSpec:
    if name not in METRICS:
        _load()
    if name not in METRICS:
        raise CrsevalError(
            f"unknown metric {name!r}",
            field="metric",
            expected="one of " + ", ".join(sorted(METRICS)),
        )
    return METRICS[name]


def get_table(name: str) -> TableSpec | None:
    if name not in TABLES:
        _load()
    return TABLES.get(name)


def label(name: str) -> str:
    """The display label of a registered metric (the name itself for anything else)."""
    if name not in METRICS:
        _load()
    return METRICS[name].display if name in METRICS else name


def metric_columns(columns: Iterable[str]) -> list[str]:
    """The columns that are registered metrics with a direction (counts and context are left out)."""
    _load()
    return [c for c in columns if c in METRICS and METRICS[c].higher_is_better is not None]


def metrics_with(capability: str, role: str | None = None) -> list[str]:
    """Names of the registered metrics of a capability (and role), in registration order."""
    _load()
    return [
        m.name
        for m in METRICS.values()
        if m.capability == capability and (role is None or m.role == role)
    ]
