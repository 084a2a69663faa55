"""What every result-table column means, read from its table's declaration.

A table (``crseval/core/registry.py: TableSpec``) declares its columns; each resolves here to a
:class:`Column` — label, description, direction, scale, CI partners — from, in order: a metric named by
qualified name (``judge.pearson``), a metric of the table's capability, a context column of
:data:`CONTEXT` (ids, counts, test statistics), or a partner of a declared column by suffix (CI ends
``X_lo``/``X_hi``, ``X_p``, ``X_band``). The report, the glossary, ``compare``, ``crseval metrics`` and
the LaTeX/Markdown tables read columns through :func:`column`; :func:`undeclared` is what the run store
checks every written table against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any, Iterable

from crseval.core.registry import (
    COLUMNS,
    METRICS,
    MetricSpec,
    TableSpec,
    all_metrics,
    get_table,
    load_declarations,
)

CONTEXT = {
    "ci_lo": ("95 % CI low", "lower end of the 95 % bootstrap CI of the mean"),
    "ci_hi": ("95 % CI high", "upper end of the 95 % bootstrap CI of the mean"),
    "n": ("n", "number of items (dialogues, sessions, answers) the value is computed on"),
    "mean": ("mean", "mean over items"),
    "p": ("p", "p-value of the test in the same row"),
    "F": ("F", "one-way ANOVA F statistic"),
    "df_between": ("df₁", "ANOVA degrees of freedom between groups"),
    "df_within": ("df₂", "ANOVA degrees of freedom within groups"),
    "eta_squared": ("η²", "ANOVA effect size: share of variance between groups"),
    "statistic": ("statistic", "the test statistic (t or F)"),
    "test": ("test", "the significance test used"),
    "note": ("note", "why a value could not be computed, or a caveat"),
    "group1": ("group 1", "first group of a Tukey HSD pair"),
    "group2": ("group 2", "second group of the pair"),
    "meandiff": ("mean difference", "mean of group 2 minus mean of group 1"),
    "p_tukey": ("p (Tukey)", "family-wise adjusted p-value (Tukey HSD)"),
    "lower": ("lower", "lower end of the Tukey 95 % interval of the difference"),
    "upper": ("upper", "upper end of the Tukey 95 % interval of the difference"),
    "reject": ("different", "Tukey HSD: the two groups differ at α = .05"),
    "label": ("label", "display name of the metric"),
    "verdict": (
        "verdict",
        "known groups: held (the AUC's CI above .5), reversed (below .5) or not separated",
    ),
    "metric": ("metric", "registered metric name"),
    "dimension": ("dimension", "rated dimension"),
    "aspect": ("aspect", "judged aspect"),
    "judge": ("judge", "judge (panel member), or a baseline"),
    "session": ("session", "session index"),
    "dialogue": ("dialogue", "dialogue id"),
    "turn": ("turn", "turn index (recommender turns for behavior alignment)"),
    "item": ("item", "rated item id"),
    "failed": ("failed", "ratings or sessions that failed and are recorded, not imputed"),
    "level": ("level", "dialogue, turn or system level (system: over per-system means)"),
    "system": ("system", "the CRS the row is about (its name)"),
    "user": ("user", "user id"),
    "pearson_r": ("Pearson r", "Pearson correlation"),
    "spearman_rho": ("Spearman ρ", "Spearman rank correlation"),
    "items": ("items", "items (dialogues)"),
    "data": ("data", "the labelled set the row is computed on"),
    "difference": ("difference", "paired difference"),
    "systems": ("systems", "number of systems compared"),
    "dialogues": ("dialogues", "dialogues the value is computed on"),
    "p_holm": (
        "p (Holm)",
        "p-value adjusted by Holm's method over the table's tests at the same level",
    ),
    "f1": ("F1", "harmonic mean of precision and recall"),
    "pearson_p": ("Pearson p", "p-value of the Pearson correlation"),
    "spearman_p": ("Spearman p", "p-value of the Spearman correlation"),
}


# derived columns: suffix → what it is of the column it qualifies. One naming: a CI is X_lo / X_hi (a
# mean's: ci_lo / ci_hi); a p-value is p (the row's test), X_p (the test of X) or p_<correction>.
PARTNERS = (
    ("_lo", "lower end of the 95 % CI of"),
    ("_hi", "upper end of the 95 % CI of"),
    ("_p", "p-value of"),
    ("_band", "Koo & Li band of"),
    ("_anova", "ANOVA (moment) estimate of"),
)
# columns renamed to that naming in 0.2; the old names are still read for one release (deprecated)
RENAMED = {
    "ci_low": "ci_lo",
    "ci_high": "ci_hi",
    "kappa_ci_low": "kappa_lo",
    "kappa_ci_high": "kappa_hi",
    "p_value": "p",
    "p_adj": "p_tukey",
    "p_pearson": "pearson_%_p",
    "p_abs_error": "abs_error_p",
    "p_t_abs_error": "abs_error_t_p",
    "difference_lo": "pearson_difference_lo",
    "difference_hi": "pearson_difference_hi",
}


def renamed(column: str) -> str | None:
    """The current name of a column written under an older name (``bt_low`` → ``bt_lo``), else None."""
    if column in RENAMED:
        return RENAMED[column]
    for old, new in (("_low", "_lo"), ("_high", "_hi")):
        if column.endswith(old) and column != old[1:]:
            return column[: -len(old)] + new
    return None


@dataclass(frozen=True)
class Column:
    name: str
    label: str
    description: str
    higher_is_better: bool | None = None  # None: context, a count, a CI end
    metric: str = ""  # the qualified metric it holds, if it holds one
    scale: str = ""
    ci: tuple[str, str] | None = None  # its declared CI ends (low, high) in the same table


def _from_metric(name: str, m: MetricSpec) -> Column:
    return Column(name, m.display, m.description, m.higher_is_better, m.qualified, m.scale)


def _meaning(entry: str, spec: TableSpec) -> Column | None:
    """The column a table declaration's entry names, or None if nothing defines it. An entry is a
    column name, a qualified metric (its column keeps the metric's name) or ``column=qualified``."""
    name, _, qualified = entry.partition("=")
    if qualified:
        return _from_metric(name, METRICS[qualified]) if qualified in METRICS else None
    if entry in METRICS:  # a qualified name: another capability's metric, under its own name
        return _from_metric(METRICS[entry].name, METRICS[entry])
    own = METRICS.get(f"{spec.capability}.{entry}")
    if own is not None:
        return _from_metric(entry, own)
    return _context(entry, spec)


def _context(name: str, spec: TableSpec) -> Column | None:
    """A context column by the nearest declaration: the table's own, its room's, the shared glossary's."""
    own = {c[0]: c[1:] for c in spec.context}
    found = own.get(name) or COLUMNS.get(spec.capability, {}).get(name) or CONTEXT.get(name)
    return Column(name, *found) if found else None


def _partner(name: str, known: dict[str, Column], spec: TableSpec) -> Column | None:
    """A CI end or p-value of a declared column (or of a context quantity such as ``difference``)."""
    for suffix, what in PARTNERS:
        stem = name[: -len(suffix)] if name.endswith(suffix) else ""
        base = known.get(stem) or (_context(stem, spec) if stem else None)
        if base is not None:
            return Column(name, f"{base.label} {suffix.strip('_')}", f"{what} {base.label}")
    return None


def declared_columns(spec: TableSpec) -> dict[str, Column | None]:
    """Every entry of a table's declaration and what it resolves to (None: defined nowhere)."""
    return _declared(spec, load_declarations())


@lru_cache(maxsize=None)
def _declared(spec: TableSpec, _n_metrics: int) -> dict[str, Column | None]:
    entries = [*spec.ids, *spec.columns]
    known: dict[str, Column] = {}
    for e in entries:
        meaning = _meaning(e, spec)
        if meaning is not None:
            known[meaning.name] = meaning
    out: dict[str, Column | None] = {}
    for e in entries:
        c = _meaning(e, spec) or _partner(e, known, spec)
        if c is not None:
            ends = (f"{c.name}_lo", f"{c.name}_hi")
            c = replace(c, ci=ends) if set(ends) <= {*entries} else c
        out[e] = c
    return out


@lru_cache(maxsize=None)
def _by_name(spec: TableSpec, n_metrics: int) -> dict[str, Column]:
    return {c.name: c for c in _declared(spec, n_metrics).values() if c is not None}


def column(table: str, name: str) -> Column | None:
    """What column ``name`` of ``table`` means, by the table's declaration; None where the table does
    not declare it (a ``dynamic`` pattern declares the names it matches)."""
    spec = get_table(table)
    if spec is None:
        return None
    declared = _by_name(spec, load_declarations())
    if name in declared:
        return declared[name]
    text = next((t for pattern, t in spec.dynamic if fnmatchcase(name, pattern)), None)
    return Column(name, name, text) if text is not None else None


def undeclared(table: str, columns: Iterable[str]) -> str:
    """Why ``columns`` do not fit ``table``'s declaration ("" when they do)."""
    if get_table(table) is None:
        return f"table {table!r} is not declared in the registry"
    missing = [str(c) for c in columns if column(table, str(c)) is None]
    return f"table {table!r} does not declare column(s) {', '.join(missing)}" if missing else ""


def metric_columns(table: str | None, columns: Iterable[str]) -> list[str]:
    """The columns that hold a metric with a direction (counts, CI ends and context left out): by the
    table's declaration; for an undeclared table, by metric name where only one capability has it."""
    out = []
    for c in columns:
        meaning = column(table, c) if table else None
        if meaning is None and (table is None or get_table(table) is None):
            found = [m for m in all_metrics().values() if m.name == c]
            meaning = _from_metric(c, found[0]) if len(found) == 1 else None
        if meaning is not None and meaning.metric and meaning.higher_is_better is not None:
            out.append(c)
    return out


def describe(name: str, table: str | None = None) -> tuple[str, str]:
    """(label, description) of a column: by its table's declaration where the table is given and
    declares it; otherwise by name alone — a metric only one capability has, a context column, or a
    partner of either by suffix."""
    meaning = column(table, name) if table else None
    if meaning is not None:
        return meaning.label, meaning.description
    found = [m for m in all_metrics().values() if m.name == name]
    if len(found) == 1:
        return found[0].display, found[0].description
    new = renamed(name)
    if new is not None and describe(new, table)[1]:
        label, text = describe(new, table)
        return label, f"{text} (called {new} since crseval 0.2; {name} is deprecated)"
    if name in CONTEXT:
        return CONTEXT[name]
    rooms = {room[name] for room in COLUMNS.values() if name in room}
    if len(rooms) == 1:
        return rooms.pop()
    for suffix, what in PARTNERS:
        if name.endswith(suffix) and name[: -len(suffix)]:
            base_label = describe(name[: -len(suffix)], table)[0]
            return f"{base_label} {suffix.strip('_')}", f"{what} {base_label}"
    return name, ""


def metric_reference() -> list[dict[str, Any]]:
    """Every registered metric: qualified name, column, label, direction, scale, the tables that hold it,
    its signature and definition (``crseval metrics`` and the docs' metric reference print it)."""
    from crseval.core.registry import all_metrics, all_tables

    held: dict[str, list[str]] = {}
    for name, spec in all_tables().items():
        for c in declared_columns(spec).values():
            if c is not None and c.metric:
                held.setdefault(c.metric, []).append(name)
    return [
        {
            "metric": m.qualified,
            "column": m.name,
            "label": m.display,
            "higher is better": m.higher_is_better,
            "scale": m.scale,
            "tables": ", ".join(held.get(m.qualified, [])),
            "signature": m.signature(),
            "description": m.description + (f" (note: {m.note})" if m.note else ""),
        }
        for m in all_metrics().values()
    ]
