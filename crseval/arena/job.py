"""The arena job: rank systems from pairwise human votes with uncertainty.

Per vote set (each file, and all files combined in the given order): the arena's sequential Elo,
Bradley–Terry ratings with bootstrap CIs over votes, rank intervals and stability, win probabilities,
the votes a CI of a given width needs; between vote sets (e.g. open vs closed crowd): the agreement of
their ratings with CIs and of their pairwise orderings; with the arena's dialogues: each system's
satisfaction rate (Wilson CI) and its agreement with the pairwise ranking.
"""

from __future__ import annotations

from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from crseval.arena.llm_votes import PROMPT, STREAM
from crseval.arena.rating import (
    ALPHA,
    TIE_SCORE,
    bootstrap,
    davidson,
    elo,
    fit,
    ranks,
    record,
    votes_needed,
    win_probability,
)
from crseval.core.config import CommaList
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Progress
from crseval.core.output import Output
from crseval.core.signature import prompt_hash
from crseval.core.registry import shown_columns
from crseval.data.io import DatasetInfo
from crseval.data.votes import TIE, Votes, load_votes
from crseval.judge.rubric import SYSTEM
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext
from crseval.stats.correlation import fisher_ci


class ArenaConfig(BaseModel):
    """Pairwise votes → rankings with uncertainty."""

    model_config = ConfigDict(extra="forbid")
    votes: CommaList = Field(
        ...,
        description="Vote files (crs1, crs2, vote[, session_id, user_id, feedback]), or 'sample' "
        "(the bundled votes); several are ranked one by one, combined, and compared.",
        json_schema_extra={"argument": True},
    )
    dialogues: CommaList | None = Field(
        None,
        description="The arena's dialogue files (JSON, satisfied/frustrated "
        "per dialogue) for per-system satisfaction rates; any "
        "dialogue source (a shift run …) for --llm-votes.",
    )
    k: float = Field(
        16, gt=0, description="Elo K factor (the arena's: 16).", json_schema_extra={"signed": True}
    )
    initial: float = Field(
        1000,
        description="Elo starting rating (the arena's: 1000).",
        json_schema_extra={"signed": True},
    )
    alpha: float = Field(
        0.01,
        ge=0,
        description="Bradley–Terry regularisation (keeps systems without wins finite).",
        json_schema_extra={"signed": True},
    )
    ties: Literal["half", "davidson"] = Field(
        "half",
        description="Ties in Bradley–Terry: half a win each way (as the "
        "arena's Elo) or Davidson's model with a tie "
        "parameter ν.",
        json_schema_extra={"signed": True},
    )
    ci_width: float = Field(
        100, gt=0, description="Target width (Elo points) of a 95 % CI for the votes-needed table."
    )
    n_boot: int = Field(
        1000,
        ge=0,
        description="Bootstrap resamples of the votes.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed of the bootstrap (and of the LLM vote sample).",
        json_schema_extra={"signed": True},
    )
    llm_votes: bool = Field(
        False,
        description="Let the LLM vote too: pairs of --dialogues of different systems that "
        "open with the same user request, judged in both orders (a tie when "
        "the orders disagree); ranked like a vote file and compared with the "
        "human votes.",
    )
    llm_pairs: int = Field(
        200, ge=1, description="Most dialogue pairs the LLM votes on (a seeded sample)."
    )
    llm: LLMConfig = LLMConfig()


def _satisfaction(paths: list[str]) -> pd.DataFrame | None:
    """Per system: the share of its dialogues labelled satisfied (Wilson CI); None when no dialogue carries
    that label (dialogues from other sources still serve LLM votes)."""
    from crseval.data.any_dialogues import read_dialogues

    rows = [
        {"system": d.system, "satisfied": d.labels["satisfied"]}
        for p in paths
        for d in read_dialogues(p).dialogues
        if "satisfied" in d.labels
    ]
    if not rows:
        return None
    g = pd.DataFrame(rows).groupby("system")["satisfied"].agg(["sum", "count"])
    lo, hi = proportion_confint(g["sum"], g["count"], method="wilson")
    return pd.DataFrame(
        {
            "satisfaction": g["sum"] / g["count"],
            "satisfaction_lo": lo,
            "satisfaction_hi": hi,
            "dialogues": g["count"],
        }
    )


def _rate(
    name: str, votes: pd.DataFrame, config: ArenaConfig
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """(ratings table, win-probability table, bootstrap matrix) of one vote set."""
    systems = sorted(set(votes["crs1"]) | set(votes["crs2"]))
    bt = fit(votes, systems, alpha=config.alpha, ties=config.ties)
    boot = bootstrap(
        votes, systems, n_boot=config.n_boot, seed=config.seed, alpha=config.alpha, ties=config.ties
    )
    ranked = ranks(bt)
    table = record(votes, systems).loc[systems].reset_index(names="system")
    e = elo(votes, k=config.k, initial=config.initial)
    table.insert(1, "elo", [e[s] for s in systems])
    table.insert(2, "bt", bt)
    table.insert(3, "rank", ranked)
    if len(boot):
        boot_ranks = np.array([ranks(b) for b in boot])
        lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
        table.insert(3, "bt_lo", lo)
        table.insert(4, "bt_hi", hi)
        table["rank_lo"] = np.percentile(boot_ranks, 2.5, axis=0, method="lower")
        table["rank_hi"] = np.percentile(boot_ranks, 97.5, axis=0, method="higher")
        table["rank_stability"] = (boot_ranks == ranked).mean(axis=0)
        table["votes_for_ci_width"] = [
            votes_needed(h - l_, len(votes), config.ci_width) for l_, h in zip(lo, hi)
        ]
    table["vote_set"] = name
    if config.ties == "davidson":
        table["davidson_nu"] = davidson(votes, systems, alpha=config.alpha)[1]
    p = win_probability(bt)
    better = (
        (boot[:, :, None] > boot[:, None, :]).mean(axis=0)
        if len(boot)
        else np.full(p.shape, np.nan)
    )
    wins = pd.DataFrame(
        [
            {
                "vote_set": name,
                "system": a,
                "opponent": b,
                "p_win": p[i, j],
                "p_better": better[i, j],
            }
            for i, a in enumerate(systems)
            for j, b in enumerate(systems)
            if i != j
        ]
    )
    return table.sort_values("rank", kind="stable").reset_index(drop=True), wins, boot


def _majorities(votes: pd.DataFrame) -> dict[frozenset, str | None]:
    """Per system pair: the system with more votes (None on a tie)."""
    out: dict[frozenset, list] = {}
    for a, b, vote in zip(votes["crs1"], votes["crs2"], votes["vote"]):
        out.setdefault(frozenset((a, b)), []).append(vote)
    result = {}
    for pair, vs in out.items():
        counts = pd.Series([v for v in vs if v != TIE]).value_counts()
        result[pair] = (
            counts.index[0]
            if len(counts) and (len(counts) == 1 or counts.iloc[0] > counts.iloc[1])
            else None
        )
    return result


def _agreement(a: tuple, b: tuple) -> dict:
    """Two vote sets: correlation of their Bradley–Terry ratings over the common systems (Fisher-z CIs:
    systems are the sample), of their Elo ratings (what the arena could report), how many system pairs
    both order the same way, and whether their direct majorities agree."""
    (na, ta, va), (nb, tb, vb) = a, b
    common = sorted(set(ta["system"]) & set(tb["system"]))
    ta, tb = ta.set_index("system").loc[common], tb.set_index("system").loc[common]
    ra, rb = ta["bt"].to_numpy(), tb["bt"].to_numpy()
    row = {"vote_set_a": na, "vote_set_b": nb, "systems": len(common)}
    if len(common) < 3:
        return row
    for method, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        row[method] = r = float(fn(ra, rb)[0])
        row[f"{method}_lo"], row[f"{method}_hi"] = fisher_ci(r, len(common), method == "spearman")
    row["elo_pearson"] = float(stats.pearsonr(ta["elo"], tb["elo"])[0])
    pairs = list(combinations(range(len(common)), 2))
    row["pair_order_agreement"] = float(
        np.mean([np.sign(ra[i] - ra[j]) == np.sign(rb[i] - rb[j]) for i, j in pairs])
    )
    ma, mb = _majorities(va), _majorities(vb)
    both = [p for p in set(ma) & set(mb) if ma[p] is not None and mb[p] is not None]
    row["direct_pairs"] = len(both)
    row["direct_agreement"] = (
        float(np.mean([ma[p] == mb[p] for p in both])) if both else float("nan")
    )
    return row


# the tables the report section shows, in its order (those a run has)
SECTION_TABLES = [
    "arena_ratings",
    "arena_win_probability",
    "arena_satisfaction_agreement",
    "arena_agreement",
    "arena_llm_votes",
]


def rankings(
    sets: list[tuple[str, Votes]],
    config: ArenaConfig,
    progress: Progress,
    extra: list[tuple[str, Votes]] = (),
) -> tuple[Output, pd.DataFrame]:
    """Rate every vote set, all of ``sets`` combined, and the ``extra`` sets (LLM votes: compared, never
    combined with people's): (their tables, figures and report section; the ratings table of the combined,
    else the first, set)."""
    from crseval.arena.plots import plot_ratings, plot_win_probability

    out = Output()
    named = [(n, v.data) for n, v in sets]
    if len(sets) > 1:
        named.append(("combined", pd.concat([v.data for _, v in sets], ignore_index=True)))
    main_name = named[-1][0]
    named += [(n, v.data) for n, v in extra]
    sets = [*sets, *extra]
    what = "Elo, Bradley–Terry" + (
        f", {config.n_boot} bootstrap resamples" if config.n_boot else ""
    )
    tick = progress(f"rating each vote set ({what})", len(named))
    rated = []
    for name, votes in named:
        table, wins, boot = _rate(name, votes, config)
        rated.append((name, table, boot, votes, wins))
        tick(1)
    ratings = pd.concat([t for _, t, *_ in rated], ignore_index=True)
    if config.dialogues and (sat := _satisfaction(config.dialogues)) is not None:
        ratings = ratings.join(sat, on="system")
        if len(agree := _satisfaction_agreement(rated, sat)):
            out.table("arena_satisfaction_agreement", agree)
    out.table("arena_ratings", ratings)
    out.table("arena_win_probability", pd.concat([w for *_, w in rated], ignore_index=True))
    if len(sets) > 1:
        files = [(n, t, v) for n, t, _, v, _ in rated if n != "combined"]
        out.table(
            "arena_agreement", pd.DataFrame([_agreement(a, b) for a, b in combinations(files, 2)])
        )
    main = next(r for r in rated if r[0] == main_name)
    out.figure(
        "arena_ratings",
        lambda path: plot_ratings(ratings, path),
        "Bradley–Terry ratings with 95 % bootstrap CIs (bars) and the arena's sequential "
        "Elo (diamonds), per vote set",
    )
    out.figure(
        "arena_win_probability",
        lambda path: plot_win_probability(main[4], path, main[0]),
        f"P(row beats column) under the Bradley–Terry model ({main[0]} votes)",
    )
    out.section(
        "Arena rankings",
        _section_text(config, sets) + _llm_note(extra),
        tables=SECTION_TABLES,
        figures=["arena_ratings", "arena_win_probability"],
    )
    return out, ratings[ratings["vote_set"] == main[0]]


def _satisfaction_agreement(rated: list, sat: pd.DataFrame) -> pd.DataFrame:
    """Per vote set with at least three systems rated by satisfaction: its ratings' correlation with it."""
    agree = []
    for name, table, *_ in rated:
        both = table.merge(
            sat, left_on="system", right_index=True, how="left", suffixes=("", "_")
        ).dropna(subset=["satisfaction"])
        if len(both) >= 3:
            agree.append(
                {
                    "vote_set": name,
                    "systems": len(both),
                    "spearman": float(stats.spearmanr(both["bt"], both["satisfaction"])[0]),
                    "pearson": float(stats.pearsonr(both["bt"], both["satisfaction"])[0]),
                }
            )
    return pd.DataFrame(agree)


def _section_text(config: ArenaConfig, sets: list[tuple[str, Votes]]) -> str:
    davidson = (
        " with Davidson's tie model (tie parameter ν in davidson_nu)"
        if config.ties == "davidson"
        else ""
    )
    return (
        f"{' + '.join(f'{n} ({len(v)} votes)' for n, v in sets)}. elo: the arena's sequential Elo (file order, "
        f"K = {config.k:g}, start {config.initial:g}, tie = ½), which depends on the vote order and carries no "
        f"uncertainty. bt: Bradley–Terry{davidson} on the same scale with 95 % bootstrap CIs over votes ({config.n_boot} "
        "resamples); rank_lo–rank_hi: the 95 % rank interval; rank_stability: how often the rank holds under "
        f"resampling; votes_for_ci_width: votes a CI of {config.ci_width:g} points would need (widths shrink as "
        "1/√votes)." + (" arena_agreement: how far two vote sets agree." if len(sets) > 1 else "")
    )


def _llm_note(extra: list[tuple[str, Votes]]) -> str:
    return "".join(
        f" {n}: the LLM's votes on {len(v)} dialogue pairs that open with the same user request, each "
        f"judged in both orders; {v.data['position_consistent'].mean():.0%} of pairs got the same answer "
        "in both orders, the rest are ties (arena_llm_votes)."
        for n, v in extra
    )


def _llm_vote_set(config: ArenaConfig, ctx: RunContext) -> tuple[tuple[str, Votes], dict]:
    """The LLM's votes on pairs of the arena's dialogues, as one more vote set; the LLM's identity."""
    from crseval.arena.llm_votes import dialogue_pairs, llm_votes
    from crseval.data.any_dialogues import read_dialogues

    if not config.dialogues:
        raise CrsevalError(
            "LLM votes compare dialogues", field="llm_votes", fix="pass --dialogues DIAL.json"
        )
    items = [
        (d.id, d.system, d.dialogue) for p in config.dialogues for d in read_dialogues(p).dialogues
    ]
    pairs = dialogue_pairs(items, config.llm_pairs, config.seed)
    if not pairs:
        raise CrsevalError(
            "no two dialogues of different systems open with the same user request",
            field="dialogues",
            fix="LLM votes need dialogues of several systems answering the same requests",
        )
    client = ctx.llm(config.llm, "judge")
    try:
        votes = llm_votes(
            pairs, client, ctx, config.seed, ctx.progress("LLM votes (both orders)", 2 * len(pairs))
        )
        identity = client.identity()
    finally:
        client.close()
    if votes.empty:
        raise CrsevalError(
            "every LLM vote failed", fix=f"see each vote's error in records/{STREAM}.jsonl"
        )
    info = DatasetInfo(
        f"votes:llm-{identity.get('model') or identity.get('backend')}",
        f"records/{STREAM}.jsonl",
        f"{len(votes)}",
    )
    return ("llm", Votes(info, votes)), {
        **identity,
        "T": 0.0,
        "prompt": prompt_hash(SYSTEM, PROMPT),
    }


def run(config: ArenaConfig, ctx: RunContext) -> Output:
    sets: list[tuple[str, Votes]] = [
        (v.info.name.split(":", 1)[1], v) for v in map(load_votes, config.votes)
    ]
    if len({n for n, _ in sets}) < len(sets):
        raise CrsevalError(
            "two vote files share a name", field="votes", fix="give each vote set its own file name"
        )
    bt = (
        f"davidson(mle,alpha={ALPHA:g})"
        if config.ties == "davidson"
        else f"bradley-terry(choix-ilsr,alpha={ALPHA:g},tie={TIE_SCORE:g})"
    )
    out = Output(
        signature={
            "data": " + ".join(v.info.signature() for _, v in sets),
            "metric": {"arena": f"elo(file-order,tie={TIE_SCORE:g})|{bt}"},
        }
    )
    extra = []
    if config.llm_votes:
        llm_set, out.signature["llm"] = _llm_vote_set(config, ctx)
        out.table("arena_llm_votes", llm_set[1].data)
        extra.append(llm_set)
    part, shown = rankings(sets, config, ctx.progress, extra=extra)
    out.add(part)
    out.title = f"arena rankings ({shown['vote_set'].iloc[0]} votes)"
    out.summary = (
        shown[shown_columns("arena_ratings", shown.columns)].dropna(axis=1, how="all").round(3)
    )
    return out


JOB = JobSpec(
    "arena",
    ArenaConfig,
    run,
    "runs/arena",
    "Rank systems from pairwise votes: the arena's Elo, Bradley–Terry with bootstrap CIs, rank stability, "
    "win probabilities, votes needed; agreement between vote sets; satisfaction from the arena's dialogues.",
    "crseval arena rankings",
    uses_llm=lambda c: c.llm_votes,
)
