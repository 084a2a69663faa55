"""The judge meta-evaluation job: rate human-labelled dialogues with a judge or a panel and report how far
its ratings agree with people (per aspect Pearson/Spearman with CIs, next to a length baseline); panels
add reliability, per-judge agreement and the reliability of the mean of n judges."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.config import CommaList, load_config
from crseval.core.job import JobSpec, Progress, Result, no_progress
from crseval.core.signature import make_signature
from crseval.core.types import Ratings
from crseval.data.judged import JudgedSet, load_judged
from crseval.judge.config import PanelConfig
from crseval.judge.judging import Judge, judge_items
from crseval.llm import LLMConfig, make_client
from crseval.runs.store import RunStore

SUMMARY_COLUMNS = ["aspect", "judge", "n", "failed", "pearson", "pearson_lo", "pearson_hi", "spearman", "spearman_lo",
                   "spearman_hi"]


class JudgeMetaConfig(BaseModel):
    """Judge vs human labels."""

    model_config = ConfigDict(extra="forbid")
    data: Path = Field(..., description="JSON file of labelled conversations, or an AB-ReDial folder.",
                       json_schema_extra={"argument": True})
    level: Literal["dialogue", "turn"] = Field("dialogue", description="Judge whole dialogues or single turns.")
    aspects: CommaList | None = Field(None, description="Comma-separated aspects (default: every labelled aspect).")
    limit: int | None = Field(None, ge=1, description="Evaluate a seeded random subset of this many items.")
    llm: LLMConfig = LLMConfig()
    samples: int = Field(1, ge=1, le=50, description="Ratings per item from the judge (a panel of repeated samples).")
    temperature: float = Field(0.0, ge=0, le=2, description="Judge temperature (use > 0 with --samples > 1).")
    panel: Path | None = Field(None, description="TOML with [[judges]] entries (name, samples, [judges.llm]); "
                                                 "replaces --backend/--model/--samples.")
    n_boot: int = Field(1000, ge=0, description="Bootstrap resamples for the correlation CIs.")
    seed: int = Field(0, description="Seed for the subset and the bootstrap.")


def default_out(config: JudgeMetaConfig) -> Path:
    return Path("runs") / f"meta-eval-{config.level}"


def _judges(config: JudgeMetaConfig, cache: Path) -> list[Judge]:
    if config.panel is not None:
        return [Judge(s.name, make_client(s.llm, cache), s.samples, s.llm.temperature)
                for s in load_config(config.panel, PanelConfig).judges]
    llm = config.llm.model_copy(update={"temperature": config.temperature})
    return [Judge(llm.model or llm.backend, make_client(llm, cache), config.samples, config.temperature)]


def _subset(judged: JudgedSet, limit: int | None, seed: int) -> list:
    items = judged.items
    if limit is not None and limit < len(items):
        pick = np.random.default_rng(seed).choice(len(items), size=limit, replace=False)
        items = [items[i] for i in sorted(pick)]
    return items


def _panel_tables(store: RunStore, records: list[dict], items: list, aspects: list[str], seed: int) -> list[str]:
    """Reliability of the panel as raters, each judge's agreement with people, the mean of n judges."""
    from crseval.judge.panel import judge_agreement, mean_of_n, panel_ratings
    from crseval.reliability.analysis import reliability_table
    by_id = {it.id: it for it in items}
    rel, agree, mon = [], [], []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in by_id.items() if aspect in it.labels})
        pr = panel_ratings(records, aspect)
        if len(pr.items) >= 3:
            rel.append(reliability_table(pr))
            mon.append(mean_of_n(pr, human, seed=seed).assign(aspect=aspect))
        agree.append(judge_agreement(records, human, aspect))
    written = []
    for name, parts in [("judge_panel_reliability", rel), ("judge_agreement", agree), ("judge_mean_of_n", mon)]:
        if parts:
            store.write_table(name, pd.concat(parts, ignore_index=True))
            written.append(name)
    return written


def _humans_too(store: RunStore, human: Ratings | None, records: list[dict], items: list, aspects: list[str]) -> list:
    from crseval.judge.meta import humans_and_judges
    if human is None:
        return []
    ids = {it.id for it in items}
    parts = [t for a in aspects if (t := humans_and_judges(human, records, a, ids)) is not None]
    if not parts:
        return []
    store.write_table("humans_and_judges_reliability", pd.concat(parts, ignore_index=True))
    return ["humans_and_judges_reliability"]


def meta_eval_into(store: RunStore, judged: JudgedSet, judges: list[Judge], *, aspects: list[str] | None = None,
                   limit: int | None = None, seed: int = 0, n_boot: int = 1000, human: Ratings | None = None,
                   progress: Progress = no_progress) -> tuple[pd.DataFrame, dict]:
    """Rate ``judged`` with ``judges`` into ``store``; (meta-evaluation table, signature)."""
    from crseval.judge.meta import item_scores, meta_eval_table, plot_meta
    aspects = list(aspects or judged.aspects)
    items = _subset(judged, limit, seed)
    sig = make_signature(
        data=f"{judged.info.signature()}|level:{judged.level}|n:{len(items)}|seed:{seed}",
        llm=[{**j.client.identity(), "name": j.name, "samples": j.samples, "T": j.temperature} for j in judges],
        metric={"meta-eval": f"pearson+spearman(boot:{n_boot})|baseline:length", "aspects": aspects})
    store.save_signature(sig)
    total = len(items) * len(aspects) * sum(j.samples for j in judges)
    records = judge_items([(it.id, it.dialogue, it.target) for it in items], aspects, judges, store, seed=seed,
                          progress=progress("LLM judge ratings", total))
    table = meta_eval_table(records, JudgedSet(judged.info, judged.level, items), aspects, n_boot=n_boot, seed=seed)
    store.write_table("meta_eval", table)
    store.write_table("judge_item_scores", item_scores(records, items))
    plot_meta(table, store.figure_path("meta_eval"))
    tables = ["meta_eval", "judge_item_scores"] + _humans_too(store, human, records, items, aspects)
    n_raters = sum(j.samples for j in judges)
    if n_raters > 1:
        tables += _panel_tables(store, records, items, aspects, seed)
    failed = int(table[~table["judge"].isin(["length baseline", "panel mean"])]["failed"].sum())
    store.add_section(
        f"Judge meta-evaluation ({judged.level} level)",
        f"{len(items)} {judged.level}s × {len(aspects)} aspects × {n_raters} judge sample(s); {failed} ratings "
        f"failed and are recorded, not imputed. Correlations with the mean human label carry 95% paired-bootstrap "
        f"CIs ({n_boot} resamples). The length baseline correlates the judged text's length with the label: "
        f"a judge that does not beat it may be measuring length.",
        tables=[(t, None) for t in tables],
        figures=[("meta_eval", "Spearman correlation of each judge's scores with the mean human label, per aspect, "
                  "with 95 % bootstrap CIs; grey: the length baseline (the judged text's length)")])
    return table, sig


def run(config: JudgeMetaConfig, store: RunStore, progress: Progress) -> Result:
    judged = load_judged(config.data, config.level)
    human = None
    if judged.info.name.startswith("ab-redial"):  # per-annotator ratings exist: analyse humans + judges together
        from crseval.data.ratings import load_ab_redial
        human = load_ab_redial(config.data if config.data.is_dir() else config.data.parent, config.level)
    judges = _judges(config, store.cache_path)
    try:
        table, sig = meta_eval_into(store, judged, judges, aspects=config.aspects, limit=config.limit,
                                    seed=config.seed, n_boot=config.n_boot, human=human, progress=progress)
    finally:
        for j in judges:
            j.client.close()
    return Result("judge.meta-eval", f"judge meta-evaluation ({judged.level} level)", table[SUMMARY_COLUMNS].round(3),
                  sig, store.root)


JOB = JobSpec("judge.meta-eval", JudgeMetaConfig, run, default_out,
              "Rate labelled dialogues with the judge(s) and report per aspect Pearson/Spearman with the human labels "
              "(bootstrap CIs) next to a length baseline; panels add reliability and agreement tables.",
              "crseval judge meta-evaluation", uses_llm=lambda c: True)
