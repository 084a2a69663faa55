"""Judge meta-evaluation: how well do an LLM judge's ratings agree with human labels?

Per aspect and judge: Pearson and Spearman with the mean human label, with paired-bootstrap CIs, at
dialogue or turn level. Every table also carries a **length baseline** (the correlation of the judged
text's length with the human label): a small judge can correlate with quality only because it
correlates with length, so a judge design must beat this row, not just zero.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.core.signature import make_signature
from crseval.core.types import Ratings
from crseval.data.judged import JudgedSet
from crseval.judge.job import Judge, judge_items
from crseval.judge.panel import judge_agreement, mean_of_n, panel_ratings
from crseval.reliability.analysis import reliability_table
from crseval.report.plots import OKABE_ITO, plt, style
from crseval.runs.store import RunStore
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
    """The drill-down behind every correlation: per item and aspect, each judge's mean score (and how
    many of its ratings failed) next to the human label and the judged text's length."""
    df = pd.DataFrame(records)
    agg = df.groupby(["item", "aspect", "judge"]).agg(score=("score", "mean"),
                                                     failed=("score", lambda s: int(s.isna().sum()))).reset_index()
    wide = agg.pivot_table(index=["item", "aspect"], columns="judge", values=["score", "failed"])
    wide.columns = [f"{j} {'score' if v == 'score' else 'failed'}" for v, j in wide.columns]
    by_id = {it.id: it for it in items}
    wide = wide.reset_index()
    wide["human"] = [by_id[i].labels.get(a) for i, a in zip(wide["item"], wide["aspect"])]
    wide["length"] = [_length(by_id[i]) for i in wide["item"]]
    return wide


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
    fig.savefig(path)
    plt.close(fig)
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


def run_meta_eval(judged: JudgedSet, judges: Sequence[Judge], out: str | Path, *, aspects: Sequence[str] | None = None,
                  limit: int | None = None, seed: int = 0, n_boot: int = 1000, human_ratings: Ratings | None = None,
                  progress: Callable[[str, int], Callable[[int], None]] | None = None) -> pd.DataFrame:
    store = RunStore(out)
    aspects = list(aspects or judged.aspects)
    items = judged.items
    if limit is not None and limit < len(items):
        pick = np.random.default_rng(seed).choice(len(items), size=limit, replace=False)
        items = [items[i] for i in sorted(pick)]
    store.save_signature(make_signature(
        data=f"{judged.info.signature()}|level:{judged.level}|n:{len(items)}|seed:{seed}",
        judges=[{**j.client.identity(), "name": j.name, "samples": j.samples, "T": j.temperature} for j in judges],
        metric={"meta-eval": f"pearson+spearman(boot:{n_boot})|baseline:length", "aspects": aspects}))
    total = len(items) * len(aspects) * sum(j.samples for j in judges)
    records = judge_items([(it.id, it.dialogue, it.target) for it in items], aspects, judges, store, seed=seed,
                          progress=progress("LLM judge ratings", total) if progress else None)
    sub = JudgedSet(judged.info, judged.level, items)
    table = meta_eval_table(records, sub, aspects, n_boot=n_boot, seed=seed)
    store.write_table("meta_eval", table)
    store.write_table("judge_item_scores", item_scores(records, items))
    plot_meta(table, store.figure_path("meta_eval"))
    tables = ["meta_eval", "judge_item_scores"]
    n_raters = sum(j.samples for j in judges)
    if human_ratings is not None:
        ids = {it.id for it in items}
        parts = [t for a in aspects if (t := humans_and_judges(human_ratings, records, a, ids)) is not None]
        if parts:
            store.write_table("humans_and_judges_reliability", pd.concat(parts, ignore_index=True))
            tables.append("humans_and_judges_reliability")
    if n_raters > 1:
        by_id = {it.id: it for it in items}
        rel, agree, mon = [], [], []
        for aspect in aspects:
            human = pd.Series({i: it.labels[aspect] for i, it in by_id.items() if aspect in it.labels})
            pr = panel_ratings(records, aspect)
            if len(pr.items) >= 3:
                rel.append(reliability_table(pr))
                mon.append(mean_of_n(pr, human, seed=seed).assign(aspect=aspect))
            agree.append(judge_agreement(records, human, aspect))
        for name, parts in [("judge_panel_reliability", rel), ("judge_agreement", agree), ("judge_mean_of_n", mon)]:
            if parts:
                store.write_table(name, pd.concat(parts, ignore_index=True))
                tables.append(name)
    failed = int(table[~table["judge"].isin(["length baseline", "panel mean"])]["failed"].sum())
    store.add_section(
        f"Judge meta-evaluation ({judged.level} level)",
        f"{len(items)} {judged.level}s × {len(aspects)} aspects × {n_raters} judge sample(s); {failed} ratings "
        f"failed and are recorded, not imputed. Correlations with the mean human label carry 95% paired-bootstrap "
        f"CIs ({n_boot} resamples). The length baseline correlates the judged text's length with the label: "
        f"a judge that does not beat it may be measuring length.",
        tables=tables, figures=["meta_eval"])
    store.close()
    return table
