"""Meta-evaluation of serendipity evaluators against user-study ground truth.

Per evaluator: Pearson correlation (in %), MAE and RMSE of its 1–5 predictions against the ground
truth, each with a 95 % bootstrap CI (answers resampled), computed on the answers where both exist
(the excluded count is reported). Evaluators are ranked on the answers *every* evaluator scored
(``pearson_%_same``, ``n_same``): the best and second-best by that Pearson are marked, and
every evaluator's absolute errors are compared with the best *baseline* (proxy or random, lowest
MAE) by a two-sided Wilcoxon signed-rank test and, as the SerenEva paper reports it, a two-sided paired
t-test, on the answers both scored. ``pearson_%_p`` is the p-value of each Pearson r (scipy).
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from crseval.core.registry import metrics_with
from crseval.stats.bootstrap import item_bootstrap
from crseval.stats.tests import wilcoxon_p


def _pearson(x, y):
    return 100 * stats.pearsonr(x, y)[0] if np.ptp(x) > 0 and np.ptp(y) > 0 else np.nan


def _mae(x, y):
    return float(np.mean(np.abs(x - y)))


def _rmse(x, y):
    return float(np.sqrt(np.mean((x - y) ** 2)))


def with_ci(
    metric: str, fn, x: np.ndarray, y: np.ndarray, n_boot: int, rng: np.random.Generator
) -> dict:
    """``{metric, metric_lo, metric_hi}``: ``fn(x, y)`` and its 95 % item-bootstrap interval (NaN below 3 items)."""
    lo, hi = (
        item_bootstrap(lambda i: fn(x[i], y[i]), len(x), n_boot=n_boot, rng=rng)
        if len(x) > 2 and n_boot
        else (np.nan, np.nan)
    )
    return {metric: fn(x, y) if len(x) > 2 else np.nan, f"{metric}_lo": lo, f"{metric}_hi": hi}


def meta_evaluate(
    predictions: Mapping[str, np.ndarray], truth: np.ndarray, *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    truth = np.asarray(truth, float)
    rng = np.random.default_rng(seed)
    rows = []
    for name, pred in predictions.items():
        pred = np.asarray(pred, float)
        ok = np.isfinite(pred) & np.isfinite(truth)
        x, y = pred[ok], truth[ok]
        row = {"evaluator": name, "n": int(ok.sum()), "excluded": int((~ok).sum())}
        row["pearson_%_p"] = (
            float(stats.pearsonr(x, y).pvalue)
            if len(x) > 2 and np.ptp(x) > 0 and np.ptp(y) > 0
            else np.nan
        )
        for metric, fn in (("pearson_%", _pearson), ("mae", _mae), ("rmse", _rmse)):
            row |= with_ci(metric, fn, x, y, n_boot, rng)
        rows.append(row)
    table = pd.DataFrame(rows)
    # ranks compare evaluators on the same answers: those every evaluator scored (a proxy has no score where the
    # user had no earlier rating, an LLM none outside its sample)
    same = np.isfinite(truth) & np.all(
        [np.isfinite(np.asarray(p, float)) for p in predictions.values()], axis=0
    )
    table["n_same"] = int(same.sum())
    table["pearson_%_same"] = [
        _pearson(np.asarray(p, float)[same], truth[same]) if same.sum() > 2 else np.nan
        for p in predictions.values()
    ]
    order = table["pearson_%_same"].rank(ascending=False, method="first")
    table["rank"] = np.where(order == 1, "best", np.where(order == 2, "second", ""))
    base = table[table["evaluator"].isin(metrics_with("serendipity", "baseline"))].dropna(
        subset=["mae"]
    )  # a baseline may score nothing
    if len(base):
        best = base.loc[base["mae"].idxmin(), "evaluator"]
        pb = np.asarray(predictions[best], float)
        ps, ts = [], []
        for name in table["evaluator"]:
            p = np.asarray(predictions[name], float)
            ok = np.isfinite(p) & np.isfinite(pb) & np.isfinite(truth)
            e1, e2 = np.abs(p[ok] - truth[ok]), np.abs(pb[ok] - truth[ok])
            same = name == best or np.all(e1 == e2)
            ps.append(np.nan if same else wilcoxon_p(e1, e2))
            ts.append(np.nan if same else float(stats.ttest_rel(e1, e2).pvalue))
        table["vs_best_baseline"] = best
        table["abs_error_p"] = ps
        table["abs_error_t_p"] = ts
        table["significant"] = table["abs_error_p"] < 0.05
    return table


def ensemble_grid(
    predictions: Mapping[str, np.ndarray],
    truth: np.ndarray,
    members: Sequence[str] | None = None,
    *,
    max_size: int = 4,
    metric: str = "pearson_%",
) -> pd.DataFrame:
    """Every combination (2…max_size) of the given evaluators, averaged per answer (NaN-aware), scored
    against the ground truth; sorted best first by ``metric`` (Pearson %; MAE and RMSE: lower first)."""
    from itertools import combinations

    names = list(members or predictions)
    truth = np.asarray(truth, float)
    rows = []
    for size in range(2, min(max_size, len(names)) + 1):
        for combo in combinations(names, size):
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an answer no member scored: NaN
                mean = np.nanmean(
                    np.stack([np.asarray(predictions[c], float) for c in combo]), axis=0
                )
            ok = np.isfinite(mean) & np.isfinite(truth)
            x, y = mean[ok], truth[ok]
            rows.append(
                {
                    "ensemble": " + ".join(combo),
                    "size": size,
                    "n": int(ok.sum()),
                    "pearson_%": _pearson(x, y) if len(x) > 2 else np.nan,
                    "mae": _mae(x, y) if len(x) else np.nan,
                    "rmse": _rmse(x, y) if len(x) else np.nan,
                }
            )
    table = pd.DataFrame(rows)
    return (
        table.sort_values(metric, ascending=metric != "pearson_%").reset_index(drop=True)
        if len(table)
        else table
    )
