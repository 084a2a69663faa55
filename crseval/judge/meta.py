"""Judge meta-evaluation: how well do an LLM judge's ratings agree with human labels?

Per aspect and judge: Pearson and Spearman with the mean human label, with paired-bootstrap CIs, at
dialogue or turn level. Every table also carries a **length baseline** (the correlation of the judged
text's length with the human label): a small judge can correlate with quality only because it
correlates with length, so a judge design must beat this row, not just zero.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from crseval.core.types import Ratings
from crseval.data.judged import JudgedSet
from crseval.judge.panel import panel_ratings
from crseval.reliability.analysis import reliability_table
from crseval.plotting import OKABE_ITO, plt, save, style
from crseval.stats.correlation import correlation_ci


def _length(item) -> float:
    utts = list(item.dialogue.utterances)
    text = utts[item.target].text if item.target is not None else " ".join(u.text for u in utts)
    return float(len(text))


def meta_eval_table(records: Sequence[dict], judged: JudgedSet, aspects: Sequence[str], *, n_boot: int = 1000,
                    seed: int = 0) -> pd.DataFrame:
    items = {it.id: it for it in judged.items}
    df = pd.DataFrame(records)
    rows = []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in items.items() if aspect in it.labels})
        sub = df[df["aspect"] == aspect]
        sources = [(j, g.dropna(subset=["score"]).groupby("item")["score"].mean(), int(g["score"].isna().sum()))
                   for j, g in sub.groupby("judge")]
        if sub["judge"].nunique() > 1:
            sources.append(("panel mean", sub.dropna(subset=["score"]).groupby("item")["score"].mean(), 0))
        sources.append(("length baseline", pd.Series({i: _length(items[i]) for i in human.index}), 0))
        for name, scores, failed in sources:
            both = pd.concat([scores.rename("s"), human.rename("h")], axis=1, join="inner").dropna()
            p = correlation_ci(both["s"], both["h"], "pearson", n_boot=n_boot, seed=seed)
            s = correlation_ci(both["s"], both["h"], "spearman", n_boot=n_boot, seed=seed)
            rows.append({"aspect": aspect, "judge": name, "level": judged.level, "n": len(both), "failed": failed,
                         "pearson": p[0], "pearson_lo": p[1], "pearson_hi": p[2], "spearman": s[0],
                         "spearman_lo": s[1], "spearman_hi": s[2], "spearman_p": s[3]})
    return pd.DataFrame(rows)


def item_scores(records: Sequence[dict], items) -> pd.DataFrame:
    """The drill-down behind every correlation: per item, aspect and judge, the judge's mean score (and how
    many of its ratings failed) next to the human label and the judged text's length."""
    df = pd.DataFrame(records)
    out = df.groupby(["item", "aspect", "judge"]).agg(score=("score", "mean"),
                                                     failed=("score", lambda s: int(s.isna().sum()))).reset_index()
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
        err = np.array([(t["spearman"] - t["spearman_lo"]).clip(lower=0), (t["spearman_hi"] - t["spearman"]).clip(lower=0)])
        ax.bar(x, t["spearman"], width, yerr=np.nan_to_num(err), capsize=2, label=judge,
               color="#999999" if judge == "length baseline" else OKABE_ITO[j % len(OKABE_ITO)])
    ax.axhline(0, color="#333333", lw=0.8)
    ax.set_xticks(range(len(aspects)), aspects, rotation=20, ha="right")
    ax.set_ylabel("Spearman ρ with human label (95% CI)")
    ax.set_title("Judge agreement with human labels")
    ax.legend(fontsize=8)
    save(fig, path)
    return path


def humans_and_judges(human: Ratings, records: Sequence[dict], aspect: str, items: set[str]) -> pd.DataFrame | None:
    """Reliability of humans and LLM judges rating together, where both use the judge's 1–5 scale."""
    if aspect not in human.dimensions or human.scale_of(aspect) != (1, 5):
        return None
    h = human.dimension(aspect)
    h = h[h["item"].isin(items)].assign(rater=lambda d: "human:" + d["rater"], dimension=aspect)
    j = panel_ratings(records, aspect).data
    both = Ratings(pd.concat([h, j], ignore_index=True), (1, 5), f"humans+judges:{aspect}")
    return reliability_table(both).assign(raters="humans + judges") if len(both.items) >= 3 else None
