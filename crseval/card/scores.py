"""The card from its parts' per-unit tables: every system's score (pooled over units, 95 % CI), the CRS minus
each reference paired on the same units (95 % CI, paired permutation p), and each metric's known-groups evidence
measured in the same run (template follows the user, stubborn ignores the user)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from crseval.adaptation.user_validity import simulator_evidence
from crseval.card.real_users import judge_transfer, real_users, source
from crseval.card.real_users import evidence as shipped
from crseval.card.health import behaviours_line, health_lines, session_records
from crseval.card.config import REFERENCES, CardConfig, parts
from crseval.card.manifest import Parts
from crseval.card.rows import Row, known_groups, rows
from crseval.core.numbers import ci_text
from crseval.core.output import Output
from crseval.core.registry import get_metric
from crseval.simulation.config import SimulatorSection
from crseval.stats.paired import (
    MIN_GROUP,
    TOO_FEW,
    detectable_difference,
    known_groups_auc,
    paired_difference,
    pooled,
    verdict,
)


Reader = Callable[[str, str], pd.DataFrame]  # (part, table) → the part's table


def part_of(row: Row, *systems: str) -> str:
    """Where a row's units for these systems are: the LLM parts for the judge's rows and the LLM CRS."""
    if row.part == "behavior":
        return row.part
    return f"{row.part}-llm" if row.llm or "llm" in systems else row.part


def units(read: Reader, row: Row, part: str, system: str) -> pd.DataFrame:
    """One system's units of a row: ``unit``, ``total`` (the value, or the sum over a dialogue's counted
    turns), ``weight`` (1, or their count); ``read`` gives a part's table."""
    if row.part == "behavior":
        t = read(f"behavior/{system}", "behavior_turns")
        t = t[t["turn"] > 0]  # the first turn is not counted (the metrics' definition)
        g = t.groupby("dialogue")[row.column]
        return (
            pd.DataFrame({"total": g.sum(), "weight": g.count()}).rename_axis("unit").reset_index()
        )
    t = read(part, "shift_sessions" if row.part == "shift" else "dialogue_metrics")
    t = t[t["system"] == system]
    if "failed" in t:
        t = t[~t["failed"]]  # a failed session is no unit
    # a run written before dialogue_metrics held the session: the id's "{model}|{session}"
    unit = t["session"] if "session" in t else t["dialogue"].str.rpartition("|")[2].astype(int)
    if row.column not in t:
        return pd.DataFrame({"unit": [], "total": [], "weight": []})
    return pd.DataFrame(
        {"unit": unit.to_numpy(), "total": t[row.column].to_numpy(float), "weight": 1.0}
    )


def _paired(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    return a.merge(b, on="unit", suffixes=("_a", "_b"))


def _stars(p: float) -> str:
    return (
        ""
        if not np.isfinite(p)
        else "***"
        if p < 0.001
        else "**"
        if p < 0.01
        else "*"
        if p < 0.05
        else ""
    )


SHORT = 0.8  # a score resting on fewer than this share of its planned units is marked †
ILLUSTRATIVE = (
    "‡: rests on crseval's bundled 8 labelled dialogues — illustrative only (--data INSPIRED for real "
    "numbers)"
)


def groups_legend() -> str:
    """Each reference pair of the card's known groups, in words."""
    pairs = dict.fromkeys(r.groups for r in rows(True) if r.groups)
    return "; ".join(f"{b} ({REFERENCES[b]}) > {w} ({REFERENCES[w]})" for b, w in pairs)


def score_tables(config: CardConfig, read: Reader) -> dict[str, pd.DataFrame]:
    """(card, card_scores, card_comparisons, card_evidence) from the parts' tables."""
    me = config.system
    scores, comparisons, evidence, card = [], [], [], []
    for i, row in enumerate(rows(config.with_llm)):
        spec = get_metric(row.metric, row.capability)
        seed = config.seed + i
        base = {"dimension": row.dimension, "metric": spec.qualified, "label": spec.display}
        mine = _row_scores(config, read, row, base, seed)
        used, planned = _used(config, read, row, mine)
        short = used < SHORT * planned
        cell = next(s for s in mine if s["system"] == me)
        line = {
            "dimension": row.dimension,
            "label": spec.display
            + (" ‡" if illustrative(config, row) else "")
            + (" §" if row.llm else ""),
            me: ci_text(cell["mean"], cell["ci_lo"], cell["ci_hi"]) + (" †" if short else ""),
            # beside the score: the units it rests on, kept however narrow the terminal
            "n": f"{cell['n']}/{planned}",
        }
        pairs = _holm(_row_comparisons(config, read, row, base, seed))
        for c in pairs:
            line[f"vs {c['reference']}"] = (
                ci_text(c["diff"], c["diff_lo"], c["diff_hi"], sign=True)
                + _stars(c["p_holm"])
                + (f" ({c['n']} pairs)" if short else "")
            )
        ev = _evidence(config, read, row, spec.higher_is_better, seed)
        line["known groups"] = known_groups_cell(row, ev)
        line["real users"] = real_users(spec.qualified)
        scores += mine
        comparisons += pairs
        evidence.append({**base, **ev, **shipped(spec.qualified)})
        card.append({**line, "trust": ev["evidence"], "metric": spec.qualified})
    return {
        "card": pd.DataFrame(card),
        "card_scores": pd.DataFrame(scores),
        "card_comparisons": pd.DataFrame(comparisons),
        "card_evidence": pd.DataFrame(evidence),
    }


def illustrative(config: CardConfig, row: Row) -> bool:
    """A row that rests on crseval's bundled sample contexts (behavior alignment without ``--data``)."""
    return row.part == "behavior" and config.data == "sample"


def known_groups_cell(row: Row, ev: dict) -> str:
    """``template > stubborn: held .92 [.88, .96]`` — the reference pair the cell comes from, then its verdict
    (none where either system has too few sessions); ``—`` for a row without known groups."""
    if not ev["verdict"]:
        return "—"
    pair = " > ".join(row.groups or ())  # words: a narrow terminal wraps between them
    if ev["verdict"] == TOO_FEW:
        return f"{pair}: too few sessions"
    word = "FAILED" if ev["verdict"] == "reversed" else ev["verdict"]
    return f"{pair}: {word} {ci_text(ev['auc'], ev['auc_lo'], ev['auc_hi'])}"


def _row_scores(config: CardConfig, read: Reader, row: Row, base: dict, seed: int) -> list[dict]:
    """Every system's pooled score on one row, with the units it rests on (``n``)."""
    out = []
    for system in dict.fromkeys([config.system, *config.references, *(row.groups or ())]):
        part = part_of(row, system)
        u = units(read, row, part, system)
        est = pooled(u["total"], u["weight"], n_boot=config.n_boot, seed=seed)
        out.append(
            {**base, "system": system, "mean": est.value, "ci_lo": est.lo, "ci_hi": est.hi,
             "n": est.n, "part": part}
        )  # fmt: skip
    return out


def _row_comparisons(
    config: CardConfig, read: Reader, row: Row, base: dict, seed: int
) -> list[dict]:
    """The CRS minus each system it is compared with on one row, paired on the units both have."""
    me, out = config.system, []
    for ref in config.references:
        part = part_of(row, me, ref)
        both = _paired(units(read, row, part, me), units(read, row, part, ref))
        d = paired_difference(
            both["total_a"], both["total_b"], both["weight_a"], both["weight_b"],
            n_boot=config.n_boot, seed=seed,
        )  # fmt: skip
        out.append(
            {**base, "system": me, "reference": ref, "diff": d.diff, "diff_lo": d.lo,
             "diff_hi": d.hi, "p": d.p, "n": d.n, "mdd": detectable_difference(d.lo, d.hi, d.n),
             "part": part}
        )  # fmt: skip
    return out


def _used(config: CardConfig, read: Reader, row: Row, scores: list[dict]) -> tuple[int, int]:
    """(units the CRS's row ran on, units planned): its sessions that did not fail of those asked for (the
    LLM parts' for their rows); for behavior alignment, whose contexts depend on the data, the contexts it
    answered of the most any system answered."""
    me = config.system
    if row.part == "behavior":
        return next(s["n"] for s in scores if s["system"] == me), max(s["n"] for s in scores)
    llm = part_of(row, me).endswith("-llm")
    t = read("shift-llm" if llm else "shift", "shift_sessions")
    ran = int(((t["system"] == me) & ~t["failed"]).sum())
    return ran, config.llm_sessions if llm else config.sessions


def _holm(comparisons: list[dict]) -> list[dict]:
    """The row's comparisons with ``p_holm``: Holm's adjustment over the CRS's comparisons of one metric
    (one per system it is compared with); NaN p stays NaN."""
    from statsmodels.stats.multitest import multipletests

    p = np.array([c["p"] for c in comparisons], float)
    ok = np.isfinite(p)
    adjusted = np.full(len(p), np.nan)
    if ok.any():
        adjusted[ok] = multipletests(p[ok], method="holm")[1]
    for c, a in zip(comparisons, adjusted):
        c["p_holm"] = float(a)
    return comparisons


def _evidence(config: CardConfig, read: Reader, row: Row, higher: bool | None, seed: int) -> dict:
    """Known groups in this run (e.g. template follows the user, stubborn ignores the user), where the
    row declares them; what is known, in words, otherwise."""
    if row.groups is None:
        what = (
            "the bundled 8 labelled dialogues: illustrative only (--data INSPIRED for real numbers)"
            if config.data == "sample"
            else f"the labelled dialogues of {config.data}"
        )
        return {
            "auc": np.nan,
            "auc_lo": np.nan,
            "auc_hi": np.nan,
            "n": 0,
            "verdict": None,  # none: missing, in the CSV and the Parquet copy alike
            "evidence": f"no known groups for strategies; classifier trained on {what}",
        }
    better, worse = row.groups
    part = part_of(row)
    g, b = (units(read, row, part, s) for s in row.groups)
    auc = known_groups_auc(
        g["total"] / g["weight"],
        b["total"] / b["weight"],
        higher_is_better=higher is not False,
        n_boot=config.n_boot,
        seed=seed,
    )
    held = verdict(auc, min(len(g), len(b)))
    ci = f"AUC {ci_text(auc.value, auc.lo, auc.hi)} ({len(g)} vs {len(b)} sessions)"
    why = f"{better} ({REFERENCES[better]}) vs {worse} ({REFERENCES[worse]})"
    words = {
        "held": f"known groups held: {why}, {ci}",
        "reversed": f"known groups FAILED (ranks {worse} above {better}): {why}, {ci}",
        "not separated": f"known groups not separated: {why}, {ci}",
        TOO_FEW: f"known groups: too few sessions for a verdict ({len(g)} vs {len(b)}; it needs "
        f"{MIN_GROUP} a system): {why}",
    }[held]
    return {
        "auc": auc.value,
        "auc_lo": auc.lo,
        "auc_hi": auc.hi,
        "n": auc.n,
        "verdict": held,
        "evidence": words,
    }


def card_output(config: CardConfig, done: Parts) -> Output:
    """The card from the parts' results, its signature naming every part of the manifest it ran with."""
    from crseval.card.plots import plot_differences

    tables = score_tables(config, done.table)
    out = Output(
        f"Report card: {config.system}",
        tables=dict(tables),
        signature={
            "data": f"sessions:{config.kb or 'sample'}|contexts:{config.data}",
            "metric": {"card": "pooled+paired-bootstrap+permutation-p+known-groups-auc"},
            "parts": done.hashes(),
        },
    )
    if len(tables["card_comparisons"]):
        out.figure(
            "card_differences",
            lambda path: plot_differences(tables["card_comparisons"], config.system, path),
            f"{config.system} minus each system it is compared with, per metric (95 % CI), signed so "
            "that right of 0 is better (a lower-is-better metric's sign flipped)",
        )
    catalogue = _catalogue(config, tables["card_scores"])
    sessions = session_records(done)
    rests = [*health_lines(config, sessions), *done.failures]
    tested = behaviours_line(config, sessions)
    silent = undefined_line(config, tables["card_scores"], done.table)
    validity = done.results.get("validity") if config.human else None
    users = simulator_evidence(
        SimulatorSection().user, measured=validity.tables if validity else None
    )
    out.section(
        f"Report card: {config.system}",
        _section_text(config, catalogue[0], rests, silent, tested, users),
        tables=["card", "card_scores", "card_comparisons", "card_evidence"],
        figures=["card_differences"],
    )
    card = tables["card"]
    whole = not card[config.system].str.endswith("†").any()
    out.summary = card.drop(columns=["dimension", "trust", "metric"])
    out.notes += [
        users,
        f"real users: whether the metric predicts real users' own labels (AUC) and votes, on {source()}; "
        "on your own users' dialogues: crseval criterion",
        "vs: the CRS minus the reference on the same users/contexts, 95 % CI; * p<.05, ** p<.01, *** p<.001 "
        "(paired permutation test, Holm-adjusted over each row's comparisons). known groups: whether the "
        "metric ranks the reference CRS expected to score better above the one expected to score worse "
        f"(the cell names the pair: {groups_legend()}), in this run (AUC, 95 % CI); a FAILED metric does "
        "not measure what its name says. These reference CRSs run beside yours whichever systems you "
        f"compared with; a verdict needs {MIN_GROUP} sessions a system.",
    ]
    shown = rows(config.with_llm)
    out.notes += [ILLUSTRATIVE] * any(illustrative(config, r) for r in shown)
    out.notes += [judge_transfer()] * any(r.llm for r in shown)  # the judge's rows: marked §
    out.notes += rests + [silent] * bool(silent) + [tested] * bool(tested) + catalogue
    if not whole:
        out.notes.append(
            f"n: units used / planned; †: fewer than {SHORT:.0%} of them (failed sessions or contexts)"
        )
    out.failures = "; ".join(done.failures)
    return out


def _section_text(
    config: CardConfig, catalogue: str, rests: list[str], silent: str, tested: str, users: str
) -> str:
    links = ", ".join(f"[{p.name}]({p.name}/report.html)" for p in parts(config))
    refs = "; ".join(
        f"**{r}**: {config.describe(r)}"
        for r in dict.fromkeys([*config.references, *known_groups(False)])
    )
    return (
        f"{config.system} beside reference systems on the same simulated users ({config.sessions} × "
        f"{config.turns} turns"
        + (f"; with the LLM {config.llm_sessions} × {config.llm_turns}" if config.with_llm else "")
        + f") and the same dialogue contexts ({config.data}); {catalogue}. {refs}. "
        "Each score is pooled over its units (sessions; dialogues for behavior alignment) with a 95 % "
        "bootstrap CI; each 'vs' column is the CRS minus the reference on the units both have (95 % CI, "
        "paired permutation p, Holm-adjusted over the row's comparisons). 'known groups' and 'trust' say "
        "how far the metric can be trusted: whether it ranks the reference CRS expected to score better "
        f"above the one expected to score worse in this run ({groups_legend()}; no verdict below "
        f"{MIN_GROUP} sessions a system). 'n': the units the CRS's score rests on of those planned (†: "
        f"fewer than {SHORT:.0%}; a 'vs' cell names its pairs then). "
        + (f"{ILLUSTRATIVE}. " if any(illustrative(config, r) for r in rows(False)) else "")
        + f"{' '.join(r + '.' for r in rests) or 'No session of your CRS failed.'} "
        f"{silent + '. ' if silent else ''}{tested}. {users} "
        f"Every part's own report: {links}."
    )


def undefined_line(config: CardConfig, scores: pd.DataFrame, read: Reader) -> str:
    """One line when a row of the card has no score for the CRS (n 0): which rows, and why — most often a CRS
    that named no title, whose shares of recommendations are undefined."""
    me = config.system
    mine = scores[(scores["system"] == me) & (scores["n"] == 0)]
    if mine.empty:
        return ""
    named = read("dialogues", "dialogue_metrics")
    named = named.loc[named["system"] == me, "recommendations"].sum()
    why = (
        "it named no title in any session, and these are shares of the titles a CRS names"
        if named == 0
        else "no session gave one"
    )
    return f"{me} has no score on {', '.join(mine['label'])} (n 0): {why}"


def _catalogue(config: CardConfig, scores: pd.DataFrame) -> list[str]:
    """The catalogue the simulated users wanted films from, and a line where a CRS of yours mostly named
    films outside it."""
    from crseval.data.kb import load_kb
    from crseval.data.catalogue_note import catalogue_line, outside_lines

    kb = load_kb(config.kb)
    ooc = scores[
        (scores["metric"] == "dialogues.out_of_catalogue_rate")
        & scores["system"].isin([config.system, *config.baselines])
    ]
    rates = zip(ooc["system"], ooc["mean"], ooc["n"])
    return [catalogue_line(kb.info, len(kb), "--kb"), *outside_lines(rates, kb.info, "--kb")]
