"""The criterion job's tables, figure and report section, from its parts' per-dialogue tables: each metric
against the users' labels (per dialogue), votes (per battle) and the published ranking (per system)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.numbers import ci_text
from crseval.core.output import Output
from crseval.core.registry import find_metric, get_table
from crseval.stats.criterion import battle_agreement, concordance, system_tau
from crseval.card.criterion_config import CriterionConfig
from crseval.card.rows import ROWS
from crseval.stats.paired import TOO_FEW, verdict

BAR = (0.70, 0.65)  # what "predicts real users" asks: dialogue-level AUC, share of decided battles
EXTRA = (
    ("shift.follow.wish_rate", "shift", "follow.wish_rate"),
    ("dialogues.novelty", "dialogues", "novelty"),
    ("dialogues.recommending_turns", "dialogues", "recommending_turns"),
)
JUDGED = ("proactiveness", "coherence")  # the judge's aspects the card does not show
PER_DIALOGUE = {
    "dialogues": "dialogue_metrics",
    "shift": "shift_sessions",
}  # a part's table of units


def measures(judge: bool) -> list[tuple[str, str, str, bool]]:
    card = [
        (f"{r.capability}.{r.metric}", r.part, r.column, True)
        for r in ROWS
        if r.part in ("shift", "dialogues") and (judge or not r.llm)
    ]
    judged = [(f"shift.{a}", "shift", a) for a in JUDGED if judge]
    return card + [(*e, False) for e in (*EXTRA, *judged)]


def dialogue_units(units: dict[str, list[pd.DataFrame]], label: str, judge: bool) -> pd.DataFrame:
    """One row per dialogue: system, user, the users' label and every measure."""
    words = pd.concat(units["dialogues"], ignore_index=True)
    if label not in words:
        spec = get_table("dialogue_metrics")  # a column it does not declare is a label of the data
        labels = sorted(set(words) - {*spec.ids, *spec.columns})
        raise CrsevalError(
            f"the dialogues carry no label {label!r}",
            field="label",
            expected="one of: " + (", ".join(labels) or "none (the data labels no dialogue)"),
        )
    # the user: the session the layout pairs a battle's two dialogues on, else each dialogue its own
    user = words["session"] if "session" in words else words["dialogue"]
    words = words.assign(user=user.astype(str))
    shift = pd.concat(units["shift"], ignore_index=True).rename(columns={"session": "user_session"})
    shift["user"] = shift["user_session"].astype(str)
    cols = [c for _, part, c, _ in measures(judge) if part == "shift"]
    out = words.merge(shift[["system", "user", *cols]], on=["system", "user"], how="left")
    keep = [c for _, part, c, _ in measures(judge) if part == "dialogues"]
    return out[["dialogue", "system", "user", label, *keep, *cols]]


def _battles(units: pd.DataFrame, config: CriterionConfig) -> list[tuple[str, str, str]]:
    from crseval.data.votes import decided_battles, votes_beside

    files = config.votes.split(",") if config.votes else votes_beside(config.data)
    have = set(zip(units["system"], units["user"]))
    return [b for b in decided_battles(files) if (b[1], b[0]) in have and (b[2], b[0]) in have]


def _ranking(units: pd.DataFrame, config: CriterionConfig) -> tuple[dict[str, float], str]:
    """(system → score, what it is): the published Elo — of the crowd a CRSArena-Dial file names
    (``crs_arena_dial_<crowd>.json``), else the global one —, else the systems' mean label."""
    from crseval.data.votes import published_ranking

    data = Path(config.data)
    path = config.elo or (data if data.is_dir() else data.parent) / "published_elo.csv"
    if not (config.elo or Path(path).is_file()):
        return units.groupby("system")[config.label].mean().to_dict(), f"mean {config.label}"
    named = data.is_file() and data.stem.startswith("crs_arena_dial_")
    crowd = data.stem.removeprefix("crs_arena_dial_") if named else "global"
    return published_ranking(path, crowd), f"published Elo ({crowd})"


def criterion_table(units: pd.DataFrame, config: CriterionConfig) -> pd.DataFrame:
    battles = _battles(units, config)
    ranking, ranked_by = _ranking(units, config)
    at = units.set_index(["system", "user"])
    boot = {"n_boot": config.n_boot, "seed": config.seed}
    rows = []
    for qualified, _, column, on_card in measures(config.judge):
        spec = find_metric(qualified)
        higher = spec.higher_is_better is not False if spec else True
        x = units[column]
        auc = concordance(x, units[config.label], units["user"], higher_is_better=higher, **boot)
        won = [at.at[(w, u), column] for u, w, _ in battles]
        lost = [at.at[(lo, u), column] for u, _, lo in battles]
        agree = battle_agreement(
            won, lost, [u for u, _, _ in battles], higher_is_better=higher, **boot
        )
        tau = system_tau(x, units["system"], ranking, higher_is_better=higher, **boot)
        rows.append(
            {
                "metric": qualified,
                "label": (spec.display if spec else column)
                + ("" if spec and spec.higher_is_better is not None else " (no direction: higher)"),
                "on_card": on_card,
                "label_auc": auc.value,
                "label_auc_lo": auc.lo,
                "label_auc_hi": auc.hi,
                "dialogues": auc.n,
                "vote_agreement": agree.share,
                "vote_agreement_lo": agree.lo,
                "vote_agreement_hi": agree.hi,
                "vote_agreement_p": agree.p,
                "battles": agree.n,
                "battles_tied": agree.ties,
                "ranking_tau": tau.value,
                "ranking_tau_lo": tau.lo,
                "ranking_tau_hi": tau.hi,
                "systems": tau.n,
                "ranked_by": ranked_by,
                "criterion_verdict": _verdict(auc, agree),
            }
        )
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """What the terminal shows of the criterion table, a cell per question with its 95 % CI, narrow enough
    for 80 columns (the report and the files: every column, as numbers)."""
    return pd.DataFrame(
        {
            "label": table["label"],
            "verdict": table["criterion_verdict"],
            "their labels: AUC · dialogues": [
                f"{ci_text(r.label_auc, r.label_auc_lo, r.label_auc_hi)} · {r.dialogues}"
                for r in table.itertuples()
            ],
            "their votes: share agreed · battles": [
                f"{ci_text(r.vote_agreement, r.vote_agreement_lo, r.vote_agreement_hi)} · {r.battles}"
                for r in table.itertuples()
            ],
            "ranking (τ)": [
                ci_text(r.ranking_tau, r.ranking_tau_lo, r.ranking_tau_hi, sign=True)
                for r in table.itertuples()
            ],
        }
    )


def _verdict(auc, agree) -> str:
    """'predicts' (both CIs above .5), 'reversed' (either below), else 'not shown' — also where the
    dialogues or the decided battles number fewer than :data:`~crseval.stats.paired.MIN_GROUP`, whose CIs
    say nothing (a study's first participants: 1 battle read "predicts (meets the bar)"); '+ bar' where
    the points reach :data:`BAR`."""
    v = [verdict(auc, auc.n), verdict(agree, agree.n)]
    if TOO_FEW in v:
        return "not shown"
    if "reversed" in v:
        return "reversed"
    if v == ["held", "held"]:
        return "predicts" + (
            " (meets the bar)" if auc.value >= BAR[0] and agree.share >= BAR[1] else ""
        )
    return "not shown"


def criterion_tables(
    out: Output, config: CriterionConfig, parts: dict, wish_gaps: pd.DataFrame
) -> pd.DataFrame:
    from crseval.card.plots import plot_criterion

    units = dialogue_units(parts, config.label, config.judge)
    table = criterion_table(units, config)
    out.table("criterion_dialogues", units)
    out.table("criterion", table)
    out.table("wish_gaps", wish_gaps)
    out.figure(
        "criterion",
        lambda path: plot_criterion(table, path, BAR),
        "Per metric, in its own direction: the AUC for the users' own label (left) and the share "
        "of decided battles in which it prefers the CRS the user voted for (right), with 95 % CIs "
        f"from resampling users; dotted: chance, dashed: the bar ({BAR[0]:.2f}, {BAR[1]:.0%})",
    )
    out.section(
        "Criterion validity: do the card's numbers predict what real users felt?",
        _note(units, table, config),
        tables=["criterion", "wish_gaps", "criterion_dialogues"],
        figures=["criterion"],
    )
    return table


def _note(units: pd.DataFrame, table: pd.DataFrame, config: CriterionConfig) -> str:
    battles = int((table["battles"] + table["battles_tied"]).max()) if len(table) else 0
    head = (
        f"{len(units)} dialogues of {units['user'].nunique()} real users with {units['system'].nunique()} "
        f"CRSs ({config.data}); {units[config.label].mean():.0%} labelled {config.label}; {battles} decided "
        "battles with both dialogues. Each metric in its own direction: AUC (Harrell's C for a rating) "
        "for the label, CI from resampling users; battles: share of decided battles in which it prefers "
        "the CRS the user voted for (ties left out, exact binomial p); τ: Kendall's τ-b of the systems' "
        "means with the ranking named, CI from resampling dialogues within systems. "
    )
    met = table[table["criterion_verdict"].str.contains("bar")]
    if len(met):
        return head + f"Meets the bar (AUC ≥ .70 and ≥ 65 % of battles): {', '.join(met['label'])}."
    return (
        head + "No metric meets the bar (AUC ≥ .70 and ≥ 65 % of battles). " + _blame(units, table)
    )


def _blame(units: pd.DataFrame, table: pd.DataFrame) -> str:
    """Where the card's metrics lose real users: the dialogues each cannot be read on, and what does
    predict where it is not on the card."""
    card = table[table["on_card"]].sort_values("label_auc", ascending=False)
    lines = [
        f"The best card metric, {r.label}, reaches AUC {r.label_auc:.2f} [{r.label_auc_lo:.2f}, "
        f"{r.label_auc_hi:.2f}] on the {r.dialogues} dialogues it can be read on (of {len(units)}) and "
        f"decides {r.battles} battles."
        for r in card.head(1).itertuples()
    ]
    if "recommending_turns" in units:
        quiet = int((units["recommending_turns"] == 0).sum())
        lines.append(
            f"Shares of recommendations (out-of-catalogue, repetition, rejected repeats) are undefined on "
            f"the {quiet} dialogues in which the CRS names no film, and favour a CRS that names few."
        )
    other = table[~table["on_card"] & table["criterion_verdict"].str.startswith("predicts")]
    lines += [
        f"Not on the card, {r.label} predicts: AUC {r.label_auc:.2f}, {r.vote_agreement:.0%} of "
        f"{r.battles} battles."
        for r in other.itertuples()
    ]
    return " ".join(lines) + " wish_gaps: what the users asked for that following cannot read."
