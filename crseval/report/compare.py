"""Compare runs side by side on the per-item metrics they share, with significance tests.

The registry says what each table is: its id columns (items are paired on them) and which columns are
metrics (registered, with a direction); everything else — text, CI bounds, counts — is context and is
never tested. Each run gets the mean of each metric with a 95 % bootstrap CI. Two runs: a paired t-test
when the items match, otherwise Welch's t-test. More runs: one-way ANOVA (F, p) and Tukey HSD. Markdown
and LaTeX (booktabs) mark a unique best value in bold and a unique second best underlined; ties are not
marked. Anything left out is named with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.numbers import ci_text, number, p_value
from crseval.core.glossary import column, describe, metric_columns, renamed
from crseval.core.registry import all_tables, get_table
from crseval.runs.formats import latex_table, markdown_table
from crseval.runs.view import Run
from crseval.stats.bootstrap import bootstrap_ci
from crseval.stats.tests import anova_tukey, paired_or_welch


@dataclass
class Comparison:
    table: pd.DataFrame
    names: list[str]
    table_name: str
    dropped: list[str] = field(default_factory=list)
    difference: str = ""  # the column of a paired difference with its CI (two report cards)
    signature: str = ""  # what was compared and how (:func:`signature`)


def signature(
    runs: Sequence[Path], names: Sequence[str], table: str, test: str, seed: int | None = None
) -> str:
    """The comparison's signature line: crseval's version, the table, the test, the seed (two cards: each
    card's own, in its signature) and each run's own signature, hashed (two comparisons with the same line
    compared the same results the same way)."""
    from crseval.core.signature import content_hash, format_signature, stable_json
    from crseval.core.version import __version__

    def run_hash(run: Path) -> str:
        sig = Run(run).signature
        return content_hash(stable_json(sig).encode(), 8) if sig else "unsigned"

    return format_signature(
        {
            "crseval": __version__,
            "job": "compare",
            "table": table,
            "test": test,
            **({"seed": seed} if seed is not None else {}),
            "runs": {n: run_hash(Path(r)) for n, r in zip(names, runs)},
        }
    )


def shared_tables(runs: Sequence[Run]) -> list[str]:
    """Registered tables that every run has and that hold a metric column numeric in every run (not a
    display table of "mean [lo, hi]" text): per-item tables (with id columns) first, in registry order."""
    tables = all_tables()

    def numeric(t: str) -> bool:
        return any(
            all(pd.api.types.is_numeric_dtype(r.tables[t][c]) for r in runs)
            for c in metric_columns(t, runs[0].tables[t].columns)
            if all(c in r.tables[t] for r in runs)
        )

    shared = [t for t in tables if all(t in r.tables for r in runs) and numeric(t)]
    return sorted(shared, key=lambda t: not tables[t].ids)


def _columns(
    table: str,
    frames: list[pd.DataFrame],
    names: list[str],
    ids: list[str],
    wanted: Sequence[str] | None,
    dropped: list[str],
) -> list[str]:
    shared = [c for c in frames[0].columns if c not in ids and all(c in f for f in frames)]
    wanted = [_current(c, shared, dropped) for c in wanted or ()]
    candidates = wanted or metric_columns(table, shared)
    if not wanted:
        dropped += [
            f"{c}: not a registered metric (context or a CI bound)"
            for c in shared
            if c not in candidates and c not in ids
        ]
    out = []
    for c in candidates:
        if c not in shared:
            raise CrsevalError(
                f"metric {c!r} is not a column shared by all runs",
                field="--metrics",
                expected="one of " + ", ".join(metric_columns(table, shared)),
            )
        bad = [n for n, f in zip(names, frames) if not pd.api.types.is_numeric_dtype(f[c])]
        if bad:
            dropped.append(f"{c}: not numeric in {', '.join(bad)}")
            continue
        blank = [n for n, f in zip(names, frames) if not np.isfinite(f[c].to_numpy(float)).any()]
        if blank:
            dropped.append(f"{c}: no value in {', '.join(blank)}")
            continue
        out.append(c)
    return out


def _current(name: str, shared: list[str], notes: list[str]) -> str:
    """A metric asked for by a name it had before crseval 0.2, under its current name (noted)."""
    new = renamed(name)
    if name in shared or new not in shared:
        return name
    notes.append(f"{name}: deprecated name, compared as {new}")
    return new


def _row(
    table: str,
    metric: str,
    samples: list[np.ndarray],
    frames: list[pd.DataFrame],
    names: list[str],
    ids: list[str],
    seed: int,
) -> dict:
    meaning = column(table, metric)
    row = {
        "metric": metric,
        "label": describe(metric, table)[0],
        "higher is better": meaning.higher_is_better if meaning else None,
    }
    for name, x in zip(names, samples):
        est, lo, hi = bootstrap_ci(x, seed=seed)
        row[name], row[f"{name} CI"] = est, f"[{lo:.3g}, {hi:.3g}]" if np.isfinite(lo) else ""
    if len(frames) == 2:
        paired = bool(ids) and frames[0][ids].equals(frames[1][ids])
        row["test"], row["statistic"], row["p"] = paired_or_welch(samples[0], samples[1], paired)
    else:
        res = anova_tukey(np.concatenate(samples), np.repeat(names, [len(s) for s in samples]))
        row.update(
            {
                "test": f"ANOVA F({res.df_between:g}, {res.df_within:g})"
                if np.isfinite(res.F)
                else "ANOVA",
                "statistic": res.F,
                "p": res.p,
                "eta_squared": res.eta_squared,
            }
        )
        sig = res.tukey[res.tukey["reject"].astype(bool)]
        row["Tukey HSD (p<0.05)"] = (
            "; ".join(f"{a} vs {b}" for a, b in zip(sig["group1"], sig["group2"])) or "none"
        )
    return row


def compare(
    runs: Sequence[Path],
    table: str | None = None,
    metrics: Sequence[str] | None = None,
    *,
    names: Sequence[str] | None = None,
    seed: int = 0,
    systems: Sequence[str] | None = None,
) -> Comparison:
    """Every shared metric of ``runs`` side by side (two report cards: :func:`cards`). A table holding
    several systems per run (a ``model`` or ``system`` column) compares one named system of each run
    (``systems``, one per run), never their pool."""
    if len(runs) < 2:
        raise CrsevalError("compare needs at least two runs", field="RUNS")
    opened = [Run(r) for r in runs]
    names = _distinct(list(names or [Path(r).name for r in runs]), runs, systems)
    table = _table(opened, table)
    frames = [r.tables[table] for r in opened]
    empty = [r.root for r, f in zip(opened, frames) if f.empty]
    if empty:
        raise CrsevalError(f"table {table!r} has no rows", file=empty[0])
    frames = _one_system_each(table, frames, systems)
    spec = get_table(table)
    ids = [k for k in (spec.ids if spec else ()) if all(k in f for f in frames)]
    if ids and all(
        not f.duplicated(ids).any() for f in frames
    ):  # the same items in another order still pair
        frames = [f.sort_values(ids, kind="stable").reset_index(drop=True) for f in frames]
    dropped: list[str] = (
        [] if spec else [f"table {table!r} is not registered: no id columns, items not paired"]
    )
    cols = _columns(table, frames, names, ids, metrics, dropped)
    if not cols:
        raise CrsevalError(
            f"table {table!r} has no metric to compare ({'; '.join(dropped[:3])})",
            field="--table",
            fix="name a table of per-item numbers (see `crseval metrics`)",
        )
    rows = [
        _row(table, m, [f[m].to_numpy(float) for f in frames], frames, names, ids, seed)
        for m in cols
    ]
    sig = signature(runs, names, table, "paired-or-welch+anova-tukey+bootstrap-ci", seed)
    return Comparison(pd.DataFrame(rows), names, table, dropped, signature=sig)


def _table(opened: Sequence[Run], table: str | None) -> str:
    """The table compared: the one named, which every run must have, else the first they share."""
    if table is None:
        shared = shared_tables(opened)
        if not shared:
            raise CrsevalError(
                "the runs share no registered result table",
                field="RUNS",
                fix="compare runs of the same kind (see `crseval metrics` for the tables)",
            )
        table = shared[0]
    missing = [r.root for r in opened if table not in r.tables]
    if missing:
        raise CrsevalError(
            f"run has no table {table!r}", file=missing[0], fix="compare runs of the same kind"
        )
    return table


def _distinct(names: list[str], runs: Sequence[Path], systems: Sequence[str] | None) -> list[str]:
    """A column name per run: its folder's name, else its path, else with its system (one run twice,
    two of its systems compared), else numbered — two columns never share a name."""
    for candidate in (
        names,
        [str(r) for r in runs],
        [f"{Path(r).name} ({s})" for r, s in zip(runs, systems or ())],
    ):
        if len(candidate) == len(runs) and len(set(candidate)) == len(candidate):
            return candidate
    return [f"{n} #{i + 1}" for i, n in enumerate(names)]


def _one_system_each(
    table: str, frames: list[pd.DataFrame], systems: Sequence[str] | None
) -> list[pd.DataFrame]:
    """Each run's rows of its named system, the system column dropped (so the units pair across runs). The
    system column is an id of the table (a ``system`` column of replies is not)."""
    spec = get_table(table)
    ids = spec.ids if spec else ()
    col = "system" if "system" in ids and all("system" in f for f in frames) else None
    several = col is not None and any(f[col].nunique() > 1 for f in frames)
    if systems is None and several:
        held = sorted(set().union(*(f[col].astype(str) for f in frames)))
        raise CrsevalError(
            f"table {table!r} holds several systems ({', '.join(held)}); comparing their pool would "
            "mix them",
            field="--systems",
            fix="name one system per run: --systems "
            + ",".join(str(f[col].iloc[0]) for f in frames),
        )
    if systems is None:
        return frames
    if col is None or len(systems) != len(frames):
        raise CrsevalError(
            f"--systems names one system per run ({len(frames)}) of a table with a model or system "
            f"column; {table!r} has none"
            if col is None
            else f"--systems needs {len(frames)} names",
            field="--systems",
        )
    out = []
    for f, name in zip(frames, systems):
        if name not in set(f[col].astype(str)):
            raise CrsevalError(
                f"no system {name!r} in table {table!r}",
                field="--systems",
                expected=", ".join(sorted(set(f[col].astype(str)))),
            )
        out.append(f[f[col].astype(str) == name].drop(columns=[col]).reset_index(drop=True))
    return out


def cards(t: pd.DataFrame, notes: list[str], runs: Sequence[Path]) -> Comparison:
    """Two report cards' comparison (:func:`crseval.card.compare.compare_cards`'s table) as a
    :class:`Comparison`: each system's score, B − A with its CI, p Holm-adjusted over the card's metrics."""
    a, b = t["system_a"].iloc[0], t["system_b"].iloc[0]
    names = [a, b] if a != b else [f"{a} ({Path(r).name})" for r in runs]
    shown = t.rename(columns={"mean_a": names[0], "mean_b": names[1]})
    shown["higher is better"] = [_direction(m) for m in t["metric"]]
    shown["test"] = "paired on shared units, Holm over metrics"
    diff = [
        ci_text(d, lo, hi, sign=True) for d, lo, hi in zip(t["diff"], t["diff_lo"], t["diff_hi"])
    ]
    shown[f"{names[1]} − {names[0]}"] = diff
    first = ["label", *names, f"{names[1]} − {names[0]}", "p_holm"]
    shown = shown[first + [c for c in shown.columns if c not in first]]
    return Comparison(
        shown,
        names,
        "card",
        notes,
        difference=f"{names[1]} − {names[0]}",
        signature=signature(runs, names, "card", "paired-bootstrap+permutation-p+holm"),
    )


def _direction(qualified: str) -> bool | None:
    from crseval.core.registry import find_metric

    spec = find_metric(qualified)
    return spec.higher_is_better if spec else None


def _ranked(row: pd.Series, names: Sequence[str]) -> dict[str, int]:
    """0 for a unique best, 1 for a unique second best; ties and direction-less metrics are not ranked."""
    if row.get("higher is better") is None or pd.isna(row.get("higher is better")):
        return {}
    vals = {n: row[n] for n in names if np.isfinite(row[n])}
    order = sorted(vals.values(), reverse=bool(row["higher is better"]))
    out = {}
    for rank in (0, 1):
        if (
            len(order) > rank
            and order.count(order[rank]) == 1
            and (rank == 0 or order[0] != order[1])
        ):
            out.update({n: rank for n, v in vals.items() if v == order[rank]})
    return out


def _shown(c: Comparison) -> tuple[pd.DataFrame, dict[tuple[int, str], str]]:
    """The comparison as the paper shows it — label, each run's mean, test, p — and which cells are a
    unique best (bold) or, with three or more runs, a unique second best (underlined)."""
    rows, marks = [], {}
    extra = [c.difference] if c.difference else []
    for i, (_, r) in enumerate(c.table.iterrows()):
        rows.append({"metric": r["label"], **{n: r[n] for n in c.names}, "test": r["test"]})
        rows[-1].update({k: r[k] for k in extra})
        rows[-1]["p"] = p_value(r["p_holm"]) if c.difference else f"{r['p']:.3g}"
        for n, rank in _ranked(r, c.names).items():
            if rank == 0 or len(c.names) > 2:
                marks[(i, n)] = ("best", "second")[rank]
    return pd.DataFrame(rows, columns=["metric", *c.names, *extra, "test", "p"]), marks


def terminal(c: Comparison) -> pd.DataFrame:
    """A card comparison as a terminal shows it: two decimals, the difference with its CI, p (Holm), n."""
    shown = pd.DataFrame({"metric": c.table["label"]})
    for n in c.names:
        shown[n] = [number(v) for v in c.table[n]]
    shown[c.difference] = [
        ci_text(d, lo, hi, sign=True)
        for d, lo, hi in zip(c.table["diff"], c.table["diff_lo"], c.table["diff_hi"])
    ]
    shown["p (Holm)"] = [p_value(p) for p in c.table["p_holm"]]
    shown["n"] = c.table["n"]
    return shown


def to_markdown(c: Comparison) -> str:
    shown, marks = _shown(c)
    return markdown_table(shown, marks=marks)


def to_latex(c: Comparison) -> str:
    shown, marks = _shown(c)
    return latex_table(shown, marks=marks)
