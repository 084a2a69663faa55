"""The ``shift.validate`` job: the simulator of a shift run checked as an instrument (leakage, shift
following, human-likeness against human seeker turns, the shift detector's threshold sweep) and against
real users in four pillars; the measurements are in :mod:`crseval.adaptation.validity` and
:mod:`crseval.adaptation.realism`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from crseval.adaptation import discriminators as D
from crseval.adaptation.tas import TASParams
from crseval.adaptation.scoring import STREAM
from crseval.adaptation.validate_config import ValidateConfig
from crseval.adaptation.user_validity import (
    USER_TABLES,
    also_notes,
    own_words_note,
    read_others,
    read_reference,
    user_validity,
    user_validity_output,
)
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.runs.context import RunContext
from crseval.runs.view import Run

AUC = ["discriminator_auc", "discriminator_auc_lo", "discriminator_auc_hi"]
ORIGINAL_THRESHOLDS = (
    TASParams().sim_topic_shift,
    TASParams().topic_jaccard_shift,
)  # the original study's


def user_texts(source) -> list[str]:
    """The non-empty user turns of a dialogue source."""
    return [
        u.text
        for d in source.dialogues
        for u in d.dialogue.utterances
        if not u.role.is_recommender and u.text.strip()
    ]


def _sample(texts: list[str], n: int, seed: int) -> list[str]:
    idx = np.random.default_rng(seed).permutation(len(texts))[:n]
    return [texts[i] for i in sorted(idx)]


@dataclass
class _ShiftRun:
    """The shift run validated: a run directory named on the command line, or a card's shift part handed
    over in memory."""

    name: str  # in the signature: the folder's or the part's name
    records: list[dict]  # its scored sessions
    scoring: dict[str, Any]  # its scoring.json
    saved: dict | None  # its config.json
    skipped: int = 0  # damaged lines of its records left out


def _shift_run(config: ValidateConfig, ctx: RunContext) -> _ShiftRun:
    from crseval.adaptation.job import SCORING, scoring_of, sessions
    from crseval.core.order import in_key_order

    if config.run is not None:
        where, found = config.run, []
        run = _ShiftRun(where.name, [], {}, None)
        if where.exists():
            src = Run(where)  # a file is refused
            found = sessions(src)
            run.saved, run.skipped = src.config, src.skipped_lines
    elif len(ctx.inputs) == 1:
        ((name, result),) = ctx.inputs.items()
        found = in_key_order(result.records(STREAM))
        run = _ShiftRun(name, found, result.read_json(SCORING), result.read_json("config.json"))
        where = Path(name)
    else:
        raise CrsevalError("no shift run to validate", field="run", fix="name a run directory")
    run.records = [r for r in found if not r.get("errors") and r["turns"]]
    if not run.records:
        raise CrsevalError(
            "no scored sessions in this run directory",
            file=where / "records" / f"{STREAM}.jsonl",
            fix="pass the directory of a `crseval shift run` or `crseval shift score`",
        )
    run.scoring = run.scoring or scoring_of(where)
    return run


def _skipped(run: _ShiftRun) -> str:
    """A note where the source run's records had damaged lines (not JSON) that were left out."""
    n = run.skipped
    where = f"{run.name}/records/{STREAM}.jsonl"
    return f"{n} damaged line{'s' * (n != 1)} of {where} skipped (not JSON)." if n else ""


def _headline(leak: pd.DataFrame, follow: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    stated = (
        follow.assign(
            n_stated=follow["stated_share"] * follow["shifts"],
            n_reverted=follow["reverted_share"] * follow["shifts"],
        )
        .groupby("system")[["shifts", "n_stated", "n_reverted"]]
        .sum()
    )
    head = like.rename(columns={"source": "system"})[
        ["system", "words_per_turn", "act_tv_distance", "frechet"]
    ]
    head = head.merge(
        leak[["system", "leak_turn_share", "sessions_with_leak"]], on="system", how="left"
    )
    head["shifts_stated"] = head["system"].map(stated["n_stated"] / stated["shifts"])
    head["shifts_reverted"] = head["system"].map(stated["n_reverted"] / stated["shifts"])
    return head


def validate(config: ValidateConfig, ctx: RunContext) -> Output:
    from crseval.data.kb import load_kb
    from crseval.text.embed import get_embedder

    run = _shift_run(config, ctx)
    records, run_cfg = run.records, run.scoring
    if isinstance(run_cfg.get("kb"), dict):
        raise CrsevalError(
            "the run was scored against a catalogue per CRS; simulator validity reads one",
            file=config.run or Path(run.name),
            fix="validate a run of simulated users (`crseval shift run`), scored against one catalogue",
        )
    kb = load_kb(run_cfg.get("kb"))
    reference = read_reference(config.human)
    ds = reference.source
    others = read_others(config.also)
    also = also_notes(reference, others)
    out = Output("Simulator validity per model (human split half = the floor)")
    part, notes, sig_part = simulator_checks(ctx, run, kb, ds, config)
    out.add(part)
    head, follow = part.tables["shift_validity"], part.tables["shift_following"]
    tick = ctx.progress("comparing the simulated users with real users (four pillars)", 1)
    tables, more = user_validity(records, kb, reference, get_embedder(), config, others)
    tick(1)
    more += also
    more += filter(None, [own_words_note(run.saved, config.human), _skipped(run)])
    worst = D.worst(tables["shift_user_discriminator"])  # per model, the panel's best discriminator
    head = head.merge(
        worst[["source", *AUC, "member"]].rename(
            columns={"source": "system", "member": "discriminator"}
        ),
        on="system",
        how="left",
    )
    out.table("shift_validity", head)
    out.add(user_validity_output(tables, more, reference.name, str(config.run or run.name)))
    sig_part["reference"] = ", ".join([reference.name, *(r.name for r in others.values())])
    out.signature = {
        "data": f"{run.name}|human:{ds.info.signature()}|kb:{kb.info.signature()}",
        "metric": sig_part,
    }
    out.summary, out.notes = head.round(3), notes + more
    out.details = {
        "shift following by kind": follow.round(3),
        **{USER_TABLES[k]: v.round(3) for k, v in tables.items()},
    }
    return out


def _likeness(records: list[dict], ds, emb, max_turns: int, seed: int) -> pd.DataFrame:
    """Human-likeness per model: a seeded sample of its users' turns against twice as many real ones."""
    from crseval.adaptation.validity import human_likeness

    by_model: dict[str, list[str]] = {}
    for r in records:
        by_model.setdefault(r["model"], []).extend(t["user"] for t in r["turns"])
    return human_likeness(
        {m: _sample(t, max_turns, seed) for m, t in by_model.items()},
        _sample(user_texts(ds), 2 * max_turns, seed),
        emb,
        seed,
    )


def _sweep_scoring(scoring: dict):
    """The run's scoring as the detector sweep reads it: LLM topics would call an LLM again, so keyword
    topics then (said in the signature); crseval's detector (the thesis definition's rule is the study's,
    not a parameter to tune)."""
    from crseval.adaptation.config import ScoringSection

    return ScoringSection(
        **{
            **scoring,
            "topics_llm": None,
            "definition": "crseval",
            "lda": None,
            **({"topics": "keyword"} if scoring.get("topics") == "llm" else {}),
        }
    )


def simulator_checks(
    ctx: RunContext, run: _ShiftRun, kb, ds, config: ValidateConfig
) -> tuple[Output, list[str], dict]:
    """The simulated users of ``run`` against the user turns of ``ds`` (``ctx``: the run, whose cache
    the scorer may use): (the tables — ``shift_validity`` the headline — and the report section, notes, the
    metric part of a signature)."""
    from crseval.adaptation.scoring import build_scorer
    from crseval.adaptation.validity import detector_sweep, leakage, shift_following
    from crseval.text.embed import get_embedder

    max_turns, seed, records = config.max_turns, config.seed, run.records
    scoring = run.scoring.get("scoring", {})
    tick = ctx.progress("validating the simulator (leakage, shifts, human-likeness, detector)", 4)
    leak = leakage(records, kb)
    tick(1)
    follow = shift_following(records)
    tick(1)
    emb = get_embedder()
    like = _likeness(records, ds, emb, max_turns, seed)
    tick(1)
    scorer, fallbacks = build_scorer(_sweep_scoring(scoring), kb, ctx, seed)
    sweep = detector_sweep(records, scorer)
    tick(1)
    head = _headline(leak, follow, like)
    tables = {
        "shift_leakage": leak,
        "shift_following": follow,
        "shift_human_likeness": like,
        "shift_detector_sweep": sweep,
        "shift_validity": head,
    }
    out = Output(tables=dict(tables))
    notes = [_sweep_note(sweep)]
    out.section(
        "Simulator validity",
        f"The simulated users of {config.run or run.name} against {len(ds)} human dialogues ({ds.info.name}). "
        "Leakage: user turns naming a title the CRS had not named. Shift following: logged shifts "
        "whose new value the user states / whose old value comes back before the next shift. "
        "Human-likeness: words per turn, rule-based dialogue acts (total-variation distance), the "
        f"Fréchet distance of {emb.name} embeddings (the human split-half row is the floor at this "
        "sample size). " + " ".join(notes),
        tables=list(tables),
    )
    sig_part = {
        "embedder": emb.name,
        "max_turns": max_turns,
        "acts": "rules-v2",  # v2: acceptance and rejection by the reaction reader
        "grid": f"{len(sweep)} pairs",
        "sweep_scorer": scorer.signature(),
        "fallbacks": ", ".join(fallbacks) or "none",
    }
    return out, notes, sig_part


def _sweep_note(sweep: pd.DataFrame) -> str:
    if not len(sweep) or not sweep["f1"].notna().any():
        return "No simulator ground truth in these sessions (imported logs): no detector sweep."
    near = (sweep["sim_shift"] - ORIGINAL_THRESHOLDS[0]).abs() + (
        sweep["jaccard_shift"] - ORIGINAL_THRESHOLDS[1]
    ).abs()
    best = (
        sweep.assign(near=near).sort_values(["f1", "near"], ascending=[False, True]).iloc[0]
    )  # ties: nearest
    orig = sweep[
        np.isclose(sweep["sim_shift"], ORIGINAL_THRESHOLDS[0])
        & np.isclose(sweep["jaccard_shift"], ORIGINAL_THRESHOLDS[1])
    ]
    return (
        f"Shift detector: the original thresholds (similarity < {ORIGINAL_THRESHOLDS[0]} or Jaccard < "
        f"{ORIGINAL_THRESHOLDS[1]}) give "
        + (
            f"precision {orig['precision'].iloc[0]:.2f}, recall {orig['recall'].iloc[0]:.2f}; "
            if len(orig)
            else ""
        )
        + f"the best F1 on this run ({best['f1']:.2f}: precision {best['precision']:.2f}, recall "
        f"{best['recall']:.2f}) is at similarity < {best['sim_shift']:.2f} or Jaccard < "
        f"{best['jaccard_shift']:.2f} — crseval's tuning on this run, not the original's."
    )


VALIDATE = JobSpec(
    "shift.validate",
    ValidateConfig,
    validate,
    lambda c: Path(c.run) / "validity",
    "Check a shift run's simulated users: target leakage, shift following, human-likeness against "
    "human seeker turns (words, acts, Fréchet distance) and the shift detector's threshold sweep.",
    "Simulator validity",
)
