"""Judge meta-evaluation: how well do an LLM judge's ratings agree with human labels?

Per aspect and judge: Pearson, Spearman and Kendall with the mean human label, with paired-bootstrap
CIs, at dialogue or turn level; the partial correlation with length held constant; paired bootstrap
tests of judge vs baseline and judge vs judge; agreement within each CRS system and at system level. Every table also carries a **length baseline** (the correlation of the judged
text's length with the human label): a small judge can correlate with quality only because it
correlates with length, so a judge design must beat this row, not just zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from crseval.core.types import Ratings
from crseval.data.judged_types import JudgedSet
from crseval.judge.panel import panel_ratings
from crseval.reliability.analysis import reliability_table
from crseval.plotting import OKABE_ITO, plt, save, style
from crseval.stats.bootstrap import percentile_interval, resample_blocks
from crseval.stats.correlation import (
    correlation_ci,
    correlation_difference,
    partial_correlation_ci,
    row_correlations,
)


def _length(item) -> float:
    utts = list(item.dialogue.utterances)
    text = utts[item.target].text if item.target is not None else " ".join(u.text for u in utts)
    return float(len(text))


def _sources(
    df: pd.DataFrame, aspect: str, extra: dict[str, pd.Series]
) -> list[tuple[str, pd.Series, int]]:
    """(name, score per item, failed ratings) for every judge of one aspect; a panel adds its mean."""
    sub = df[df["aspect"] == aspect] if len(df) else df
    out = (
        [
            (
                j,
                g.dropna(subset=["score"]).groupby("item")["score"].mean(),
                int(g["score"].isna().sum()),
            )
            for j, g in sub.groupby("judge")
        ]
        if len(sub)
        else []
    )
    if len(sub) and sub["judge"].nunique() > 1:
        out.append(("panel mean", sub.dropna(subset=["score"]).groupby("item")["score"].mean(), 0))
    return out + [(name, scores, int(scores.isna().sum())) for name, scores in extra.items()]


def meta_eval_table(
    records: Sequence[dict],
    judged: JudgedSet,
    aspects: Sequence[str],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    extra: dict[str, dict[str, pd.Series]] | None = None,
) -> pd.DataFrame:
    """Per aspect and judge: Pearson, Spearman and Kendall with the mean human label (bootstrap CIs) and the
    partial Pearson correlation with length held constant; ``extra`` adds score series per aspect (e.g. a
    calibrated judge's predictions); the length baseline is always a row."""
    items = {it.id: it for it in judged.items}
    df = pd.DataFrame(records)
    rows = []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in items.items() if aspect in it.labels})
        length = pd.Series({i: _length(items[i]) for i in human.index})
        sources = _sources(df, aspect, (extra or {}).get(aspect, {})) + [
            ("length baseline", length, 0)
        ]
        for name, scores, failed in sources:
            both = pd.concat(
                [scores.rename("s"), human.rename("h"), length.rename("len")], axis=1, join="inner"
            ).dropna()
            row = {
                "aspect": aspect,
                "judge": name,
                "level": judged.level,
                "n": len(both),
                "failed": failed,
            }
            for method in ("pearson", "spearman", "kendall"):
                r, lo, hi, pv = correlation_ci(
                    both["s"], both["h"], method, n_boot=n_boot, seed=seed
                )
                row |= {method: r, f"{method}_lo": lo, f"{method}_hi": hi}
                if method == "spearman":
                    row["spearman_p"] = pv
            if name != "length baseline":
                r, lo, hi = partial_correlation_ci(
                    both["s"], both["h"], both["len"], n_boot=n_boot, seed=seed
                )
                row |= {"partial_length": r, "partial_length_lo": lo, "partial_length_hi": hi}
            rows.append(row)
    return pd.DataFrame(rows)


def paired_tests(
    records: Sequence[dict],
    judged: JudgedSet,
    aspects: Sequence[str],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    extra: dict[str, dict[str, pd.Series]] | None = None,
) -> pd.DataFrame:
    """Paired bootstrap of the difference in Pearson r with people: every judge vs the length baseline and
    every pair of judges (same items, same resamples)."""
    items = {it.id: it for it in judged.items}
    df = pd.DataFrame(records)
    rows = []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in items.items() if aspect in it.labels})
        judges = [(n, s) for n, s, _ in _sources(df, aspect, (extra or {}).get(aspect, {}))]
        others = judges + [
            ("length baseline", pd.Series({i: _length(items[i]) for i in human.index}))
        ]
        for k, (a, sa) in enumerate(judges):
            for b, sb in others[k + 1 :]:
                both = pd.concat(
                    [sa.rename("a"), sb.rename("b"), human.rename("h")], axis=1, join="inner"
                ).dropna()
                d, lo, hi, p = correlation_difference(
                    both["a"], both["b"], both["h"], n_boot=n_boot, seed=seed
                )
                rows.append(
                    {
                        "aspect": aspect,
                        "judge": a,
                        "versus": b,
                        "n": len(both),
                        "pearson_difference": d,
                        "pearson_difference_lo": lo,
                        "pearson_difference_hi": hi,
                        "p": p,
                    }
                )
    return pd.DataFrame(rows)


def system_tables(
    records: Sequence[dict],
    judged: JudgedSet,
    aspects: Sequence[str],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    extra: dict[str, dict[str, pd.Series]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Where dialogues carry their system: (agreement within each system, system-level agreement of the
    per-system means). Both empty without systems."""
    systems = judged.systems()
    if not systems:
        return pd.DataFrame(), pd.DataFrame()
    items = {it.id: it for it in judged.items}
    df = pd.DataFrame(records)
    within, level = [], []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in items.items() if aspect in it.labels})
        length = ("length baseline", pd.Series({i: _length(items[i]) for i in human.index}), 0)
        for name, scores, _ in _sources(df, aspect, (extra or {}).get(aspect, {})) + [length]:
            both = pd.concat([scores.rename("s"), human.rename("h")], axis=1, join="inner").dropna()
            both["system"] = [systems[i] for i in both.index]
            for system, g in both.groupby("system"):
                r = correlation_ci(g["s"], g["h"], "pearson", n_boot=0)[0]
                rho = correlation_ci(g["s"], g["h"], "spearman", n_boot=0)[0]
                within.append(
                    {
                        "aspect": aspect,
                        "judge": name,
                        "system": system,
                        "n": len(g),
                        "pearson": r,
                        "spearman": rho,
                        "mean_score": g["s"].mean(),
                        "mean_human": g["h"].mean(),
                    }
                )
            level.append(
                {"aspect": aspect, "judge": name, **system_level(both, n_boot=n_boot, seed=seed)}
            )
    return pd.DataFrame(within), pd.DataFrame(level)


def system_level(both: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> dict[str, float]:
    """How well per-system mean scores ``s`` agree with the per-system mean human labels ``h`` over the
    systems (``system`` column): Pearson, Spearman and Kendall τ-b with percentile CIs from resampling
    dialogues within each system — the sampling noise of the means; the systems themselves are fixed.
    The resamples are :func:`~crseval.stats.bootstrap.item_bootstrap`'s stratified draws (same stream),
    their correlations computed for all resamples at once."""
    # a judge that scored none of these dialogues (a reference that covers another set): no systems
    if both.empty:
        return {"systems": 0} | {
            f"{m}{part}": np.nan
            for m in ("pearson", "spearman", "kendall")
            for part in ("", "_lo", "_hi")
        }
    codes, systems = pd.factorize(both["system"])
    order = np.argsort(
        codes, kind="stable"
    )  # each system's dialogues side by side, as the strata are drawn
    codes, k = codes[order], len(systems)
    s, h = both["s"].to_numpy(float)[order], both["h"].to_numpy(float)[order]
    sizes = np.bincount(codes, minlength=k)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # one block: every resample keeps each system's dialogues in its own contiguous slice
    idx = next(
        resample_blocks(
            len(s), n_boot, np.random.default_rng(seed), codes, cells=max(1, n_boot) * len(s)
        ),
        np.zeros((0, len(s)), dtype=int),
    )
    # means rounded to 12 decimals: equal means tie whatever order their sums were taken in
    boot_s, boot_h = (np.round(np.add.reduceat(x[idx], starts, axis=1) / sizes, 12) for x in (s, h))
    row: dict[str, float] = {"systems": k}
    mean_s, mean_h = (np.round(np.bincount(codes, x, k) / sizes, 12) for x in (s, h))
    for method in ("pearson", "spearman", "kendall"):
        row[method] = correlation_ci(mean_s, mean_h, method, n_boot=0)[0]
        row[f"{method}_lo"], row[f"{method}_hi"] = percentile_interval(
            row_correlations(boot_s, boot_h, method)
        )
    return row


def item_scores(
    records: Sequence[dict], items, extra: dict[str, dict[str, pd.Series]] | None = None
) -> pd.DataFrame:
    """The drill-down behind every correlation: per item, aspect and judge, the judge's mean score (and how
    many of its ratings failed) next to the human label and the judged text's length."""
    derived = [
        {"item": i, "aspect": a, "judge": name, "score": v}
        for a, by in (extra or {}).items()
        for name, scores in by.items()
        for i, v in scores.items()
    ]
    df = pd.DataFrame(
        [{k: r[k] for k in ("item", "aspect", "judge", "score")} for r in records] + derived
    )
    out = (
        df.groupby(["item", "aspect", "judge"])
        .agg(score=("score", "mean"), failed=("score", lambda s: int(s.isna().sum())))
        .reset_index()
    )
    by_id = {it.id: it for it in items}
    out["human"] = [by_id[i].labels.get(a) for i, a in zip(out["item"], out["aspect"])]
    out["length"] = [_length(by_id[i]) for i in out["item"]]
    return out


def plot_meta(table: pd.DataFrame, path: Path) -> Path:
    style()
    aspects = list(dict.fromkeys(table["aspect"]))
    judges = list(dict.fromkeys(table["judge"]))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(aspects) + 2), 3.6))
    width = 0.8 / len(judges)
    for j, judge in enumerate(judges):
        t = table[table["judge"] == judge].set_index("aspect").reindex(aspects)
        x = np.arange(len(aspects)) + (j - (len(judges) - 1) / 2) * width
        err = np.array(
            [
                (t["spearman"] - t["spearman_lo"]).clip(lower=0),
                (t["spearman_hi"] - t["spearman"]).clip(lower=0),
            ]
        )
        ax.bar(
            x,
            t["spearman"],
            width,
            yerr=np.nan_to_num(err),
            capsize=2,
            label=judge,
            color="#999999" if judge == "length baseline" else OKABE_ITO[j % len(OKABE_ITO)],
        )
    ax.axhline(0, color="#333333", lw=0.8)
    ax.set_xticks(range(len(aspects)), aspects, rotation=20, ha="right")
    ax.set_ylabel("Spearman ρ with human label (95% CI)")
    ax.set_title("Judge agreement with human labels")
    ax.legend(fontsize=8)
    save(fig, path)
    return path


def humans_and_judges(
    human: Ratings, records: Sequence[dict], aspect: str, items: set[str]
) -> pd.DataFrame | None:
    """Reliability of humans and LLM judges rating together, where both use the judge's 1–5 scale."""
    if aspect not in human.dimensions or human.scale_of(aspect) != (1, 5):
        return None
    h = human.dimension(aspect)
    h = h[h["item"].isin(items)].assign(rater=lambda d: "human:" + d["rater"], dimension=aspect)
    j = panel_ratings(records, aspect).data
    both = Ratings(pd.concat([h, j], ignore_index=True), (1, 5), f"humans+judges:{aspect}")
    return (
        reliability_table(both).assign(raters="humans + judges") if len(both.items) >= 3 else None
    )
