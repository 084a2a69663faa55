"""The judge meta-evaluation job: rate human-labelled dialogues with a judge — the shipped calibrated judge
where it covers an aspect, a judge fitted with ``judge fit``, the LLM's rubric question, or a panel — and
report how far its ratings agree with people: Pearson/Spearman/Kendall with CIs, the length baseline, the
partial correlation with length held constant, paired tests, agreement within and across CRS systems;
panels add reliability (degenerate panels flagged), per-judge agreement, the mean of n judges and the
panel's gain over its best member."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.keys import key
from crseval.core.config import CommaList, load_config
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.core.types import Ratings
from crseval.core.registry import shown_columns
from crseval.data.io import dataset_info
from crseval.data.judged import load_judged, load_predictions
from crseval.data.judged_types import JudgedSet
from crseval.judge.config import PanelConfig
from crseval.judge.judging import JUDGMENTS, Judge, judge_items
from crseval.llm.planning import done_calling
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext


class JudgeMetaConfig(BaseModel):
    """Judge vs human labels."""

    model_config = ConfigDict(extra="forbid")
    data: Path = Field(
        ...,
        description="Labelled dialogues: a JSON file (crseval / CRSArena-Eval layout, or the "
        "arena's dialogues), an AB-ReDial folder, USS-ReDial's ReDial.txt, your own turn table with "
        "rating columns, or 'sample' (the bundled dialogues, their raters' mean ratings).",
        json_schema_extra={"argument": True},
    )
    level: Literal["dialogue", "turn"] = Field(
        "dialogue",
        description="Judge whole dialogues or single turns.",
        json_schema_extra={"signed": True},
    )
    aspects: CommaList | None = Field(
        None,
        description="Comma-separated aspects, '_' or '-' alike (default: every labelled aspect).",
    )
    judge: str = Field(
        "default",
        description="'default' (the shipped calibrated judge where it covers an aspect: the LLM's "
        "question + a turn model that also reads the LLM's states of each reply, fitted on "
        "CRSArena-Eval; the embedded model only), 'redial' (rules + the LLM's question, "
        "fitted on human-human ReDial dialogues), 'crsarena' (rules + a turn model, no LLM: the CRS "
        "Arena's nine systems), a judge fitted with `judge fit` (folder or judge.json), or 'none' (the "
        "LLM's single rubric question only).",
    )
    question: str | None = Field(
        None,
        description="The judge's question for aspects without a rubric (or to "
        "replace the rubric's).",
        json_schema_extra={"signed": True},
    )
    limit: int | None = Field(
        None, ge=1, description="Evaluate a seeded random subset of this many items."
    )
    llm: LLMConfig = LLMConfig()
    samples: int = Field(
        1, ge=1, le=50, description="Ratings per item from the judge (a panel of repeated samples)."
    )
    temperature: float = Field(
        0.0, ge=0, le=2, description="Judge temperature (use > 0 with --samples > 1)."
    )
    panel: Path | None = Field(
        None,
        description="TOML with [[judges]] entries (name, samples, question, [judges.llm]); "
        "replaces --backend/--model/--samples. The calibrated --judge joins "
        "the panel as one more member (its questions asked with the first "
        "member's model); --judge none leaves it out.",
    )
    reference: Path | None = Field(
        None,
        description="Another judge's published predictions in the FACE layout "
        "(e.g. CRSArena-Eval's face_run_train.json): a row per aspect "
        "on the same items, paired tests against it, the system level.",
    )
    n_boot: int = Field(
        1000,
        ge=0,
        description="Bootstrap resamples for the correlation CIs.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0, description="Seed for the subset and the bootstrap.", json_schema_extra={"signed": True}
    )


def default_out(config: JudgeMetaConfig) -> Path:
    return Path("runs") / f"meta-eval-{config.level}"


def calibrated_judge(spec: str, level: str):
    """The calibrated judge a ``--judge`` value names; None for 'none', or for 'default' at a level the shipped
    judge was not fitted for."""
    from crseval.judge.calibrated import SHIPPED, CalibratedJudge

    if spec == "none":
        return None
    judge = CalibratedJudge.load(spec)
    if judge.level != level:
        if spec in SHIPPED:
            return None
        raise CrsevalError(
            f"the judge was fitted on {judge.level}-level labels",
            field="judge",
            fix=f"use --level {judge.level} or fit a {level}-level judge",
        )
    return judge


def _judges(config: JudgeMetaConfig, ctx: RunContext) -> list[Judge]:
    if config.panel is not None:
        return [
            Judge(
                s.name,
                ctx.llm(s.llm, "judge"),
                s.samples,
                s.llm.temperature,
                s.question,
            )
            for s in load_config(config.panel, PanelConfig).judges
        ]
    llm = config.llm.model_copy(update={"temperature": config.temperature})
    return [
        Judge(
            llm.model or llm.backend,
            ctx.llm(llm, "judge"),
            config.samples,
            config.temperature,
        )
    ]


def _subset(judged: JudgedSet, limit: int | None, seed: int) -> list:
    items = judged.items
    if limit is not None and limit < len(items):
        pick = np.random.default_rng(seed).choice(len(items), size=limit, replace=False)
        items = [items[i] for i in sorted(pick)]
    return items


def _panel_tables(
    out: Output, records: list[dict], items: list, aspects: list[str], seed: int
) -> None:
    """Reliability of the panel as raters, each judge's agreement with people, the mean of n judges."""
    from crseval.judge.panel import judge_agreement, mean_of_n, panel_ratings
    from crseval.reliability.analysis import reliability_table

    by_id = {it.id: it for it in items}
    rel, agree, mon = [], [], []
    for aspect in aspects:
        human = pd.Series({i: it.labels[aspect] for i, it in by_id.items() if aspect in it.labels})
        pr = panel_ratings(records, aspect)
        if len(pr.items) >= 3:
            rel.append(_flag_degenerate(reliability_table(pr), pr.wide(aspect)))
            mon.append(mean_of_n(pr, human, seed=seed).assign(aspect=aspect))
        agree.append(judge_agreement(records, human, aspect))
    for name, parts in [
        ("judge_panel_reliability", rel),
        ("judge_agreement", agree),
        ("judge_mean_of_n", mon),
    ]:
        if parts:
            out.table(name, pd.concat(parts, ignore_index=True))


def _flag_degenerate(table: pd.DataFrame, wide: pd.DataFrame) -> pd.DataFrame:
    """A panel whose members give identical readings (the same model reading the same probabilities at any
    temperature) is one judge counted several times: flagged as degenerate, never banded 'excellent'."""
    spread = (wide.max(axis=1) - wide.min(axis=1)).max()
    degenerate = bool(wide.shape[1] > 1 and spread < 1e-9)
    table = table.assign(degenerate=degenerate)
    if degenerate:
        for col in [c for c in table.columns if c.endswith("_band")] + ["interpretation"]:
            if col in table:
                table[col] = "degenerate (identical readings)"
    return table


def _panel_gain(meta: pd.DataFrame, members: set[str]) -> pd.DataFrame:
    """Per aspect: the panel mean's Pearson r with people minus its best member's."""
    rows = []
    for aspect, g in meta.groupby("aspect", sort=False):
        panel = g[g["judge"] == "panel mean"]
        members_ = g[g["judge"].isin(members)]
        if len(panel) and len(members_):
            best = (
                members_.loc[members_["pearson"].idxmax()]
                if members_["pearson"].notna().any()
                else members_.iloc[0]
            )
            rows.append(
                {
                    "aspect": aspect,
                    "best_member": best["judge"],
                    "best_member_pearson": best["pearson"],
                    "panel_pearson": panel["pearson"].iloc[0],
                    "panel_gain": panel["pearson"].iloc[0] - best["pearson"],
                }
            )
    return pd.DataFrame(rows)


def _humans_too(
    out: Output, human: Ratings | None, records: list[dict], items: list, aspects: list[str]
) -> None:
    from crseval.judge.meta import humans_and_judges

    if human is None:
        return
    ids = {it.id for it in items}
    parts = [t for a in aspects if (t := humans_and_judges(human, records, a, ids)) is not None]
    if parts:
        out.table("humans_and_judges_reliability", pd.concat(parts, ignore_index=True))


def _calibrated_scores(
    calibrated, probs: dict, judged: JudgedSet, aspects: list[str], judge: str
) -> dict[str, dict[str, pd.Series]]:
    """aspect → {design: score per item}: the calibrated judge (items whose LLM ratings failed are NaN,
    counted as failed) and each of its questions' raw readings (the expected digit; a turn question's mean
    P(yes)); a question named like the aspect is the single-question judge and keeps the judge's name."""
    from crseval.judge.calibrated import design_name, question_scores

    items = judged.items
    out: dict[str, dict[str, pd.Series]] = {}
    ok = [it for it in items if all(q in probs.get(it.id, {}) for q in calibrated.questions)]
    ids = [it.id for it in items]
    for aspect in aspects:
        pred = calibrated.predict(ok, aspect, probs, judged.scale(aspect))
        out[aspect] = {
            f"calibrated ({calibrated.name})": pd.Series(
                pred, index=[it.id for it in ok], dtype=float
            ).reindex(ids)
        }
        for q in calibrated.questions:
            out[aspect][judge if q == aspect else f"{judge}: {design_name(q)}"] = question_scores(
                items, probs, q
            )
    return out


def _member_records(name: str, extra: dict, judged: JudgedSet, first: str) -> list[dict]:
    """The calibrated judge as a panel member: its predictions as rating records, mapped from each aspect's
    human scale onto the members' 1–5 (correlations are unchanged); its series leave ``extra`` (no row twice),
    and so does the single-question reading the first member already gave as a rating."""
    out = []
    for aspect, series in extra.items():
        pred = series.pop(f"calibrated ({name})")
        series.pop(first, None)
        lo, hi = judged.scale(aspect)
        for item, v in pred.items():
            score = (
                None if pd.isna(v) else float(1 + 4 * (v - lo) / (hi - lo)) if hi > lo else float(v)
            )
            out.append(
                {
                    "key": key("calibrated", item, aspect),
                    "judge": f"calibrated ({name})",
                    "sample": 0,
                    "item": item,
                    "aspect": aspect,
                    "score": score,
                    "method": "calibrated",
                    "error": None
                    if score is not None
                    else "a question of the calibrated judge failed",
                }
            )
    return out


# the meta-evaluation's tables in report order (those a run has)
REPORT_TABLES = [
    "meta_eval",
    "judge_paired_tests",
    "judge_item_scores",
    "judge_within_system",
    "judge_system_level",
    "humans_and_judges_reliability",
    "judge_panel_reliability",
    "judge_agreement",
    "judge_mean_of_n",
    "judge_panel_gain",
]


@dataclass(frozen=True)
class _Plan:
    """What a meta-evaluation rates, resolved from its config before any call: the aspects, those the
    calibrated judge covers and those the LLM's questions rate, the questions asked, the items."""

    aspects: list[str]
    covered: list[str]
    plain: list[str]
    asked: list[str]
    subset: JudgedSet
    calibrated: object | None  # the calibrated judge where it covers an aspect
    published: dict[str, pd.Series]  # aspect → --reference's predictions (read before any call)


def _plan(config: JudgeMetaConfig, judged: JudgedSet, calibrated) -> _Plan:
    from crseval.data.judged import aspect_key
    from crseval.judge.rubric import rubric_for

    aspects = list(dict.fromkeys(aspect_key(a) for a in (config.aspects or judged.aspects)))
    missing = [a for a in aspects if a not in judged.aspects]
    if missing:
        raise CrsevalError(
            f"no human labels for {', '.join(missing)}",
            field="aspects",
            expected="one of " + ", ".join(judged.aspects),
        )
    covered = [a for a in aspects if calibrated is not None and a in calibrated.models]
    plain = aspects if config.panel is not None else [a for a in aspects if a not in covered]
    for a in plain:  # an aspect without a rubric (and no --question) is refused before any call
        rubric_for(a, judged.level == "turn", config.question)
    items = _subset(judged, config.limit, config.seed)
    subset = JudgedSet(judged.info, judged.level, items, judged.scales, judged.observed_scales)
    ref = config.reference
    return _Plan(
        aspects,
        covered,
        plain,
        list(dict.fromkeys((calibrated.questions if covered else []) + plain)),
        subset,
        calibrated if covered else None,
        {a: v for a, v in load_predictions(ref, subset).items() if a in aspects} if ref else {},
    )


def _signature(
    config: JudgeMetaConfig, judged: JudgedSet, judges: list[Judge], plan: _Plan
) -> dict:
    reference = config.reference
    return {
        "data": judged.info.signature()
        + (f" | reference {dataset_info('reference', reference).signature()}" if reference else ""),
        "llm": [
            {**j.client.identity(), "name": j.name, "samples": j.samples, "T": j.temperature}
            for j in judges
        ],
        "model": {"calibrated": plan.calibrated.name, "trained_on": plan.calibrated.trained_on}
        if plan.calibrated is not None
        else None,
        "metric": {
            "meta-eval": "pearson+spearman+kendall(boot)|partial:length|baseline:length",
            "items": len(plan.subset.items),
            "aspects": plan.aspects,
            "asked": plan.asked,
        },
    }


def _rate(
    config: JudgeMetaConfig, plan: _Plan, judges: list[Judge], ctx: RunContext
) -> tuple[list[dict], dict, str]:
    """(the LLM questions' rating records, aspect → {design: score per item} of the calibrated judge and
    the published reference, the in-sample warning or '')."""
    from crseval.judge.decomposed import ask, calls, require_readings

    calibrated, items, seed = plan.calibrated, plan.subset.items, config.seed
    triples = [(it.id, it.dialogue, it.target) for it in items]
    tick = ctx.progress(
        "LLM judge ratings",
        len(items) * len(plan.plain) * sum(j.samples for j in judges)
        + (calls(triples, calibrated.questions) if calibrated is not None else 0),
    )
    question = {a: config.question for a in plan.plain if config.question}
    records = (
        judge_items(
            triples,
            plan.plain,
            judges,
            ctx.stream(JUDGMENTS),
            seed=seed,
            progress=tick,
            questions=question,
        )
        if plan.plain
        else []
    )
    extra, note, probs, asked_records = {}, "", {}, []
    if calibrated is not None:
        asked_records, probs = ask(
            triples,
            calibrated.questions,
            judges[0],
            ctx.stream(JUDGMENTS),
            seed=seed,
            progress=tick,
            hidden=calibrated.reads_states,
        )
    done_calling()  # a planning run ends here: the rest calls no model
    if calibrated is not None:
        require_readings([it.id for it in items], calibrated.questions, probs, asked_records)
        if calibrated.turn_model is not None:
            from crseval.judge.turn_model import embed_turns

            embed_turns([it.dialogue for it in items], calibrated.turn_model.encoder, ctx.progress)
        extra = _calibrated_scores(calibrated, probs, plan.subset, plan.covered, judges[0].name)
        fresh = [it.id for it in calibrated.unseen(plan.subset, items)]
        note = _in_sample(calibrated, len(items), len(fresh))
        if 0 < len(fresh) < len(items):  # partly in-sample: also a row on the items it never saw
            for a in plan.covered:
                extra[a][_unseen_row(calibrated)] = extra[a][
                    f"calibrated ({calibrated.name})"
                ].reindex(fresh)
        if config.panel is not None:
            records = records + _member_records(calibrated.name, extra, plan.subset, judges[0].name)
    for aspect, series in plan.published.items():
        extra.setdefault(aspect, {})[f"published: {config.reference.stem}"] = series
    return records, extra, note


def _tables(
    out: Output,
    table: pd.DataFrame,
    records: list[dict],
    plan: _Plan,
    extra: dict,
    judges: list[Judge],
    human: Ratings | None,
    config: JudgeMetaConfig,
) -> None:
    """The meta-evaluation's tables and figure: agreement, paired tests, per-item scores, per system, humans
    and judges together, panels."""
    from crseval.judge.meta import item_scores, paired_tests, plot_meta, system_tables

    subset, aspects, items = plan.subset, plan.aspects, plan.subset.items
    n_boot, seed = config.n_boot, config.seed
    out.table("meta_eval", table)
    out.table("judge_item_scores", item_scores(records, items, extra))
    out.table(
        "judge_paired_tests",
        paired_tests(records, subset, aspects, n_boot=n_boot, seed=seed, extra=extra),
    )
    out.figure(
        "meta_eval",
        lambda path: plot_meta(table, path),
        "Spearman correlation of each judge's scores with the mean human label, per aspect, "
        "with 95 % bootstrap CIs; grey: the length baseline (the judged text's length)",
    )
    within, system_level = system_tables(
        records, subset, aspects, n_boot=n_boot, seed=seed, extra=extra
    )
    if len(within):
        out.table("judge_within_system", within)
        out.table("judge_system_level", system_level)
    _humans_too(out, human, records, items, aspects)
    members = {r["judge"] for r in records}
    if sum(j.samples for j in judges) > 1 or len(members) > 1:
        _panel_tables(out, records, items, aspects, seed)
        if len(gain := _panel_gain(table, members)):
            out.table("judge_panel_gain", gain)


def _section(
    out: Output,
    table: pd.DataFrame,
    plan: _Plan,
    judged: JudgedSet,
    n_raters: int,
    config: JudgeMetaConfig,
    in_sample: str,
) -> None:
    failed = int(table[~table["judge"].isin(["length baseline", "panel mean"])]["failed"].sum())
    scale_note = (
        " (human scales are the observed ranges: the layout states none)"
        if judged.observed_scales
        else ""
    )
    calibrated, member = plan.calibrated, config.panel is not None
    out.section(
        f"Judge meta-evaluation ({judged.level} level)",
        f"{len(plan.subset.items)} {judged.level}s × {len(plan.aspects)} aspects; LLM questions asked: "
        f"{', '.join(plan.asked)}; {n_raters} judge sample(s); {failed} ratings failed and are recorded, "
        f"not imputed. Correlations with the mean human label carry 95% paired-bootstrap CIs "
        f"({config.n_boot} resamples); partial_length holds the judged text's length constant. The length "
        f"baseline correlates length with the label: a judge that does not beat it may be measuring length "
        f"(see the paired tests)."
        + (
            f" Calibrated judge '{calibrated.name}' (fitted on "
            f"{', '.join(t['data'] for t in calibrated.trained_on)}) for {', '.join(plan.covered)}; its "
            f"predictions are mapped onto each aspect's human scale{scale_note}"
            + (" and, as one more panel member, onto the members' 1–5." if member else ".")
            if calibrated is not None
            else ""
        )
        + (f" {in_sample}" if in_sample else ""),
        tables=REPORT_TABLES,
        figures=["meta_eval"],
    )


def meta_eval(
    config: JudgeMetaConfig,
    judged: JudgedSet,
    judges: list[Judge],
    calibrated,
    human: Ratings | None,
    ctx: RunContext,
) -> tuple[Output, pd.DataFrame, str]:
    """Rate ``judged`` with ``judges`` (and the calibrated judge, where it covers an aspect; records in
    ``ctx``): (the job's Output, its meta-evaluation table, the in-sample warning or ''). With a panel the
    calibrated judge joins ``judges`` as one more member (every member still rates every aspect) instead of
    replacing the LLM question; ``config.reference``: another judge's predictions (FACE layout), compared on
    the same items."""
    from crseval.judge.meta import meta_eval_table

    plan = _plan(config, judged, calibrated)
    out = Output(f"judge meta-evaluation ({judged.level} level)")
    out.signature = _signature(config, judged, judges, plan)
    records, extra, note = _rate(config, plan, judges, ctx)
    table = meta_eval_table(
        records, plan.subset, plan.aspects, n_boot=config.n_boot, seed=config.seed, extra=extra
    )
    _tables(out, table, records, plan, extra, judges, human, config)
    _section(out, table, plan, judged, sum(j.samples for j in judges), config, note)
    if note:
        ctx.log(f"WARNING {note}")
    return out, table, note


def _usable(calibrated, config, judges, ctx):
    """The calibrated judge if this run's LLM can answer its questions as it learned them. Where it cannot,
    the shipped judge on another backend or model (a server, another GGUF) gives way to the LLM questions
    with a warning; a judge the user named, or the shipped judge on the embedded model's other engine, is an
    error naming the fix — the default install serves the shipped judge as validated, never a fallback."""
    if calibrated is None:
        return None
    bad = calibrated.mismatch(judges[0].client)
    if bad is None:
        return calibrated
    if config.judge == "default" and bad.kind != "engine":
        ctx.log(f"WARNING {bad.why}: LLM questions only")
        return None
    raise CrsevalError(bad.why, field="judge", fix=bad.fix)


def run(config: JudgeMetaConfig, ctx: RunContext) -> Output:
    judged = load_judged(config.data, config.level)
    human = None
    if judged.info.name.startswith(
        "ab-redial"
    ):  # per-annotator ratings exist: analyse humans + judges together
        from crseval.data.ratings import load_ab_redial

        human = load_ab_redial(
            config.data if config.data.is_dir() else config.data.parent, config.level
        )
    calibrated = calibrated_judge(config.judge, judged.level)
    judges = _judges(config, ctx)
    calibrated = _usable(calibrated, config, judges, ctx)
    try:
        out, table, note = meta_eval(config, judged, judges, calibrated, human, ctx)
    finally:
        for j in judges:
            j.client.close()
    out.summary = table[shown_columns("meta_eval", table.columns)].round(3)
    out.notes = [note] if note else []
    return out


def _in_sample(calibrated, n: int, unseen: int) -> str:
    """The warning for a calibrated judge's rows when it was fitted on some of the ``n`` judged items
    ('' when it saw none of them): counted item by item (:meth:`CalibratedJudge.unseen`), so a file that
    merges its training dialogues with others is caught too."""
    seen = n - unseen
    if not seen:
        return ""
    if seen == n:
        return (
            f"IN-SAMPLE: the calibrated judge '{calibrated.name}' was fitted on all {seen} items judged "
            "here, so its rows overstate how it does on new dialogues (its cross-validated figures are "
            "in `judge fit`'s run)."
        )
    return (
        f"IN-SAMPLE: the calibrated judge '{calibrated.name}' was fitted on {seen} of the {n} items "
        f"judged here, so its rows overstate how it does on new dialogues; its rows "
        f"'{_unseen_row(calibrated)}' score only the other {unseen}."
    )


def _unseen_row(calibrated) -> str:
    return f"calibrated ({calibrated.name}), unseen items"


JOB = JobSpec(
    "judge.meta-eval",
    JudgeMetaConfig,
    run,
    default_out,
    "Rate labelled dialogues with the judge(s) and report per aspect Pearson/Spearman with the human labels "
    "(bootstrap CIs) next to a length baseline; panels add reliability and agreement tables.",
    "crseval judge meta-evaluation",
    uses_llm=lambda c: True,
)
