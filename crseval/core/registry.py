"""Metrics and result tables registered by name (the ir-measures idea: meaning declared once, found by name).

A **metric** declares its name (the column name in every result table), a display label, a one-line
description, whether higher is better, its parameters with defaults and, where it differs from a
published definition, a note saying how. A **table** declares its id columns (what identifies an item,
so runs can be paired) and which of its columns are metrics. The CLI, configs, reports, ``compare`` and
the evaluator lists look both up here instead of keeping lists of their own.

A metric joins a table from either side: the table lists it in ``columns``, or the metric names the
table (``tables=`` / ``tables_with_ci=``). The second lets a metric be declared in the module that
computes it, beside the code, so adding a metric to a table is one source file. Capabilities declare
their capability, tables and most metrics in a ``metrics.py`` module of their own (no heavy imports);
:func:`load_declarations` imports every ``crseval/*/metrics.py`` and the other modules each capability
names as declaring metrics (``declared_in``), on first use.
"""

from __future__ import annotations

import fnmatch

import importlib
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, TypedDict, Unpack

from crseval.core.errors import CrsevalError


@dataclass(frozen=True)
class MetricSpec:
    name: str  # the column name in result tables
    description: str
    label: str = ""
    higher_is_better: bool | None = True  # None: a count or a quantity with no better direction
    params: dict[str, Any] = field(default_factory=dict)
    capability: str = "general"
    role: str = "metric"  # "metric", or a capability-specific role such as "baseline" / "evaluator"
    note: str = ""  # how the definition differs from the published one, if it does
    scale: str = ""  # unit or range of the values ("−1…1", "1–5", "share 0–1", "count", "s")

    @property
    def display(self) -> str:
        return self.label or self.name

    @property
    def qualified(self) -> str:
        """``<capability>.<name>``: unique across capabilities (``judge.pearson``, ``arena.pearson``)."""
        return f"{self.capability}.{self.name}"

    def signature(self, **overrides: Any) -> str:
        params = {**self.params, **overrides}
        inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
        return f"{self.name}({inner})"


@dataclass(frozen=True)
class TableSpec:
    """A result table: ``ids`` identify a row (runs are paired on them); ``columns`` are every other
    column it may hold — a metric of its capability, a metric of another one by qualified name
    (``judge.pearson``), a context column of the glossary, a CI or p-value partner of a declared column
    (``X_lo``/``X_hi``, ``X_p``). ``dynamic`` maps a pattern (``* (calibrated)``) to what the columns
    it matches hold, for columns named after data (aspects, dimensions, evaluators). A job that writes
    a column its table does not declare is a bug (``crseval/core/glossary.py: undeclared``)."""

    name: str
    ids: tuple[str, ...]
    description: str
    capability: str = "general"
    headline: tuple[
        str, ...
    ] = ()  # the columns a reader needs first (the rest stays one click away)
    columns: tuple[str, ...] = ()
    dynamic: tuple[tuple[str, str], ...] = ()  # (fnmatch pattern, description)
    # context columns that mean something of their own in this table: (name, label, description)
    context: tuple[tuple[str, str, str], ...] = ()
    # columns under another name in runs of an older crseval: (old, current), read back renamed
    renamed: tuple[tuple[str, str], ...] = ()


METRICS: dict[str, MetricSpec] = {}  # by qualified name
TABLES: dict[str, TableSpec] = {}
# each room's own context columns (ids, counts, settings of its tables): capability → name → (label, text)
COLUMNS: dict[str, dict[str, tuple[str, str]]] = {}
# columns metrics add to tables by naming them: table → {qualified metric: with its CI ends?}
JOINED: dict[str, dict[str, bool]] = {}


class MetricFields(TypedDict, total=False):
    """:class:`MetricSpec`'s fields beyond name and description, as :func:`register_metric` takes them."""

    label: str
    higher_is_better: bool | None
    params: dict[str, Any]
    capability: str
    role: str
    note: str
    scale: str


def register_metric(
    name: str,
    description: str,
    *,
    tables: Iterable[str] = (),
    tables_with_ci: Iterable[str] = (),
    **fields: Unpack[MetricFields],
) -> MetricSpec:
    """Declare a metric (``fields``: the rest of its :class:`MetricSpec`, defaults as there); ``tables``
    (``tables_with_ci``: with its ``_lo``/``_hi`` ends) are tables it is a column of, beyond those whose
    declaration lists it."""
    spec = MetricSpec(name, description, **{**fields, "params": dict(fields.get("params") or {})})
    if spec.qualified in METRICS and METRICS[spec.qualified] != spec:
        raise CrsevalError(f"metric {spec.qualified!r} registered twice with different definitions")
    METRICS[spec.qualified] = spec
    for names, ci in ((tables, False), (tables_with_ci, True)):
        for t in names:
            JOINED.setdefault(t, {})[spec.qualified] = ci
    return spec


def with_ci(*names: str) -> list[str]:
    """Columns with their 95 % CI ends, for a table declaration: ``X, X_lo, X_hi`` for each name."""
    return [f"{n}{end}" for n in names for end in ("", "_lo", "_hi")]


class TableFields(TypedDict, total=False):
    """:class:`TableSpec`'s fields beyond name, ids and description, as :func:`register_table` takes them."""

    capability: str
    headline: Iterable[str]
    columns: Iterable[str]
    dynamic: dict[str, str]  # fnmatch pattern → what the columns it matches hold
    context: dict[str, tuple[str, str]]  # column → (label, description) of its own in this table
    renamed: dict[str, str]  # a column's name in runs of an older crseval → its current one


def register_table(
    name: str, ids: Iterable[str], description: str, **fields: Unpack[TableFields]
) -> TableSpec:
    """Declare a result table. ``context`` gives a column a meaning of its own in this table where
    the room's or the shared glossary's would be wrong (``system`` is a response text in
    ``behavior_turns``, a CRS's name elsewhere). ``renamed`` maps a column's name in runs of an older
    crseval to its current one (old runs load under today's names)."""
    spec = TableSpec(
        name,
        tuple(ids),
        description,
        fields.get("capability", "general"),
        tuple(fields.get("headline", ())),
        tuple(fields.get("columns", ())),
        tuple(fields.get("dynamic", {}).items()),
        tuple((k, *v) for k, v in fields.get("context", {}).items()),
        tuple(fields.get("renamed", {}).items()),
    )
    if name in TABLES and TABLES[name] != spec:
        raise CrsevalError(f"table {name!r} registered twice with different declarations")
    TABLES[name] = spec
    return spec


def register_columns(capability: str, columns: dict[str, tuple[str, str]]) -> None:
    """Declare a room's own context columns — ids, counts and settings its tables hold — as
    name → (label, description); the shared glossary (``crseval/core/glossary.py``) keeps only the
    terms every room uses."""
    room = COLUMNS.setdefault(capability, {})
    clash = sorted(k for k, v in columns.items() if room.get(k, v) != v)
    if clash:
        raise CrsevalError(
            f"columns of {capability!r} declared twice differently: {', '.join(clash)}"
        )
    room.update(columns)


def computing_modules() -> tuple[str, ...]:
    """The other modules that declare metrics — beside the code that computes them —, as their
    capability names them (``declare_capability(..., declared_in=(...))``)."""
    from crseval.core.capability import all_capabilities

    return tuple(sorted(m for cap in all_capabilities().values() for m in cap.declared_in))


def load_declarations() -> int:
    """Import every declaring module (once); the number of metrics registered."""
    for module in computing_modules():  # after every metrics.py, which it imports
        importlib.import_module(module)
    unknown = sorted(
        f"{m} → {t}" for t, joined in JOINED.items() if t not in TABLES for m in joined
    )
    if unknown:
        raise CrsevalError(f"metrics name undeclared tables: {', '.join(unknown)}")
    return len(METRICS)


def all_metrics() -> dict[str, MetricSpec]:
    """Every registered metric, after importing the modules that declare them."""
    load_declarations()
    return dict(sorted(METRICS.items()))


def all_tables() -> dict[str, TableSpec]:
    load_declarations()
    return {name: _with_joined(TABLES[name]) for name in sorted(TABLES)}


def _with_joined(spec: TableSpec) -> TableSpec:
    """The table with the columns of the metrics that name it (a metric of another capability by
    its qualified name), after the ones its declaration lists."""
    added = []
    for qualified, ci in JOINED.get(spec.name, {}).items():
        m = METRICS[qualified]
        name = m.name if m.capability == spec.capability else qualified
        added += with_ci(name) if ci else [name]
    return replace(spec, columns=tuple(dict.fromkeys((*spec.columns, *added)))) if added else spec


def _by_name(name: str) -> list[MetricSpec]:
    load_declarations()
    if name in METRICS:
        return [METRICS[name]]
    return [m for m in METRICS.values() if m.name == name]


def find_metric(qualified: str) -> MetricSpec | None:
    """The metric of a qualified name (``shift.follow.follow_rate``), or None for a column no metric is."""
    load_declarations()
    return METRICS.get(qualified)


def get_metric(name: str, capability: str | None = None) -> MetricSpec:
    """A metric by qualified name, or by column name within a capability (or where only one
    capability has it)."""
    found = _by_name(f"{capability}.{name}" if capability else name) or (
        [] if capability else _by_name(name)
    )
    if len(found) != 1:
        raise CrsevalError(
            f"unknown metric {name!r}" if not found else f"metric name {name!r} is ambiguous",
            field="metric",
            expected="one of " + ", ".join(sorted({m.qualified for m in found} or METRICS)),
        )
    return found[0]


def declared_params(name: str, capability: str) -> dict[str, Any]:
    """A metric's declared parameters: what the code computing it runs with, and what it is signed with."""
    return dict(get_metric(name, capability).params)


def param_signatures(names: Iterable[str], capability: str) -> dict[str, str]:
    """``{name: "name(k=v,…)"}`` for the metrics among ``names`` that declare parameters (a run's
    ``metric`` signature: what its measures ran with, from their declarations)."""
    load_declarations()
    specs = (METRICS.get(f"{capability}.{n}") for n in names)
    return {s.name: s.signature() for s in specs if s is not None and s.params}


def get_table(name: str) -> TableSpec | None:
    load_declarations()
    return _with_joined(TABLES[name]) if name in TABLES else None


def shown_columns(table: str, columns: Iterable[str]) -> list[str]:
    """What a reader sees first of a table: its id and headline columns that ``columns`` holds, in
    declared order — every column where the table declares no headline (the terminal summary, the
    report's first view and the paper table all use it)."""
    spec = get_table(table)
    present = list(columns)
    if spec is None or not spec.headline:
        return present
    named = {*spec.ids, *spec.headline, *spec.columns, *(p for p, _ in spec.dynamic)}
    out = []
    for h in (*spec.ids, *spec.headline):  # a pattern stands for the data-named columns it matches
        if any(ch in h for ch in "*?["):
            out += [c for c in present if fnmatch.fnmatchcase(c, h) and c not in named]
        elif h in present:
            out.append(h)
    return list(dict.fromkeys(out))


def label(name: str, capability: str | None = None) -> str:
    """The display label of a metric (the name itself for anything else)."""
    try:
        return get_metric(name, capability).display
    except CrsevalError:
        return name


def metrics_with(capability: str, role: str | None = None) -> list[str]:
    """Names of the registered metrics of a capability (and role), in registration order."""
    load_declarations()
    return [
        m.name
        for m in METRICS.values()
        if m.capability == capability and (role is None or m.role == role)
    ]
