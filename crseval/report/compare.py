"""Compare runs side by side on the per-item metrics they share, with significance tests.

For every numeric column of a per-item table present in all runs (e.g. ``behavior_turns``:
match, p_same; ``judge_scores``: llm_overall), each run gets its mean with a 95 % bootstrap CI.
Two runs: a paired t-test when the items (the table's key columns) match, otherwise Welch's t-test.
More runs: one-way ANOVA and Tukey HSD (statsmodels). Markdown and LaTeX (booktabs) mark the best
value in bold and the second best underlined.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from crseval.core.errors import CrsevalError
from crseval.runs.store import RunStore
from crseval.stats.bootstrap import bootstrap_ci

PER_ITEM_TABLES = {"behavior_turns": ["dialogue", "turn"], "judge_scores": ["dialogue"],
                   "reliability": ["dimension"], "meta_eval": ["aspect", "judge"]}


def _load(runs: Sequence[Path], table: str) -> list[pd.DataFrame]:
    out = []
    for r in runs:
        p = RunStore(r).path("tables", f"{table}.csv")
        if not p.exists():
            raise CrsevalError(f"run has no table {table!r}", file=p, fix="compare runs of the same kind")
        out.append(pd.read_csv(p))
    return out


def shared_tables(runs: Sequence[Path]) -> list[str]:
    names = [{p.stem for p in RunStore(r).path("tables").glob("*.csv")} for r in runs]
    return [t for t in PER_ITEM_TABLES if all(t in n for n in names)]


def compare(runs: Sequence[Path], table: str, metrics: Sequence[str] | None = None, *,
            lower_is_better: Sequence[str] = (), names: Sequence[str] | None = None, seed: int = 0) -> pd.DataFrame:
    if len(runs) < 2:
        raise CrsevalError("compare needs at least two runs", field="RUNS")
    names = list(names or [Path(r).name for r in runs])
    frames = _load(runs, table)
    keys = [k for k in PER_ITEM_TABLES.get(table, []) if all(k in f for f in frames)]
    numeric = [c for c in frames[0].columns if c not in keys and all(
        c in f and pd.api.types.is_numeric_dtype(f[c]) for f in frames)]
    metrics = list(metrics or numeric)
    unknown = [m for m in metrics if m not in numeric]
    if unknown:
        raise CrsevalError(f"metric {unknown[0]!r} is not a numeric column shared by all runs", field="--metrics",
                           expected="one of " + ", ".join(numeric))
    rows = []
    for m in metrics:
        row = {"metric": m, "higher is better": m not in lower_is_better}
        samples = [f[m].to_numpy(float) for f in frames]
        for name, x in zip(names, samples):
            est, lo, hi = bootstrap_ci(x, seed=seed)
            row[name], row[f"{name} CI"] = est, f"[{lo:.3g}, {hi:.3g}]" if np.isfinite(lo) else ""
        paired = bool(keys) and len(frames) == 2 and frames[0][keys].equals(frames[1][keys])
        if len(frames) == 2 and paired:
            ok = np.isfinite(samples[0]) & np.isfinite(samples[1])
            t = stats.ttest_rel(samples[0][ok], samples[1][ok])
            row["test"], row["p"] = f"paired t (n={int(ok.sum())})", float(t.pvalue)
        elif len(frames) == 2:
            t = stats.ttest_ind(*(s[np.isfinite(s)] for s in samples), equal_var=False)
            row["test"], row["p"] = "Welch t", float(t.pvalue)
        else:
            clean = [s[np.isfinite(s)] for s in samples]
            row["test"], row["p"] = "ANOVA", float(stats.f_oneway(*clean).pvalue)
            tukey = pairwise_tukeyhsd(np.concatenate(clean), np.repeat(names, [len(s) for s in clean]))
            t = pd.DataFrame(tukey._results_table.data[1:], columns=tukey._results_table.data[0])
            sig = t[t["reject"]]
            row["Tukey HSD (p<0.05)"] = "; ".join(f"{a} vs {b}" for a, b in zip(sig["group1"], sig["group2"])) or "none"
        rows.append(row)
    return pd.DataFrame(rows)


def _ranked(row: pd.Series, names: Sequence[str]) -> dict[str, int]:
    vals = {n: row[n] for n in names if np.isfinite(row[n])}
    order = sorted(vals, key=vals.get, reverse=bool(row["higher is better"]))
    return {n: i for i, n in enumerate(order)}


def to_markdown(table: pd.DataFrame, names: Sequence[str]) -> str:
    head = ["metric", *names, "test", "p"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + [":---:"] * (len(head) - 1)) + "|"]
    for _, r in table.iterrows():
        rank = _ranked(r, names)
        cells = []
        for n in names:
            v = f"{r[n]:.3f}"
            cells.append(f"**{v}**" if rank.get(n) == 0 else f"<u>{v}</u>" if rank.get(n) == 1 and len(names) > 2 else v)
        lines.append(f"| {r['metric']} | " + " | ".join(cells) + f" | {r['test']} | {r['p']:.3g} |")
    return "\n".join(lines)


def to_latex(table: pd.DataFrame, names: Sequence[str]) -> str:
    def esc(s: str) -> str:
        return str(s).replace("_", r"\_").replace("%", r"\%").replace("&", r"\&")
    lines = [r"\begin{tabular}{l" + "c" * len(names) + "lr}", r"\toprule",
             " & ".join(["Metric", *map(esc, names), "Test", "$p$"]) + r" \\", r"\midrule"]
    for _, r in table.iterrows():
        rank = _ranked(r, names)
        cells = []
        for n in names:
            v = f"{r[n]:.3f}"
            cells.append(rf"\textbf{{{v}}}" if rank.get(n) == 0 else
                         rf"\underline{{{v}}}" if rank.get(n) == 1 and len(names) > 2 else v)
        lines.append(" & ".join([esc(r["metric"]), *cells, esc(r["test"]), f"{r['p']:.3g}"]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)
