"""The checks of the validity gate (``tools/validate.py``): each a default command on the shared data, the
table it reads, the columns that name a row and each figure's tolerance. Tolerances: exact arithmetic on
the same input gets 1e-6 (reliability, serendipity, the arena); figures through a bootstrap or a random
split get what a different BLAS or CPU kernel moves them by (measured on AVX2 and AVX-512 machines:
the thesis test's .0012, the criterion test's .0015); simulated sessions get .01 — enough for a kernel's
last digits, far below any change that matters (a simulator change moves them by .02 or more); the
card's cells are compared as printed (two decimals), exactly."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from crseval.card.metrics import CRITERION


@dataclass(frozen=True)
class Check:
    name: str
    command: str  # as a user types it; {data} is the shared data folder
    data: tuple[str, ...]  # what it reads, under the data folder
    measure: Callable[[Path], pd.DataFrame]  # the data folder → rows: the key and figure columns
    key: tuple[str, ...]
    tolerance: dict[str, float]  # figure column → tolerance
    target: dict[str, tuple[float, float]] = field(default_factory=dict)
    known: str = ""  # the issue that owns a figure recorded outside its target
    llm: bool = False  # measured through the embedded LLM: `make validate-llm`, not `make validate`


def table(job: str, name: str, **config: Any) -> pd.DataFrame:
    """Table ``name`` of job ``job`` run with ``config`` (the command's defaults otherwise)."""
    from crseval.api import evaluate

    return evaluate(job, **config).tables[name]


ARENA = "arena/crsarena_dial"
KB = "opendialkg/opendialkg_movie_data.json"
EVAL = "judgments/crsarena_eval/crs_arena_eval_train.json"


def criterion(data: Path) -> pd.DataFrame:
    return table(
        "criterion",
        "criterion",
        data=str(data / ARENA),
        catalog=f"redial={data / 'redial'},opendialkg={data / 'opendialkg'}",
    )


def reliability(data: Path) -> pd.DataFrame:
    return table(
        "reliability",
        "reliability",
        ratings=str(data / "judgments/crs_que/annotations.csv"),
        preset="crs-que",
    )


def serendipity(data: Path) -> pd.DataFrame:
    path = str(data / "serendipity/serendipity2018")
    return table("serendipity.meta-eval", "serendipity_meta_eval", path=path)


def serendipity_sereneva(data: Path) -> pd.DataFrame:
    """SerenEva's Table 2 rows under the paper's protocol, on both studies (Taobao: the random row only)."""
    runs = {
        "serendipity2018": ("serendipity2018", "random,sog,snpr,purs,desr"),
        "taobao-serendipity": ("taobao", "random"),
    }
    return pd.concat(
        table(
            "serendipity.meta-eval",
            "serendipity_meta_eval",
            path=str(data / "serendipity" / folder),
            dataset=name,
            evaluators=evaluators,
            protocol="sereneva",
        ).assign(dataset=name)  # fmt: skip
        for name, (folder, evaluators) in runs.items()
    )


def arena(data: Path) -> pd.DataFrame:
    votes = [str(data / ARENA / f"votes_{crowd}.csv") for crowd in ("open", "closed")]
    return table("arena", "arena_ratings", votes=votes)


def thesis_tas(data: Path) -> pd.DataFrame:
    shift = data / "preference_shift"
    return table(
        "shift.score",
        "model_metrics",
        logs=str(shift / "logs"),
        kb=str(data / KB),
        definition="thesis",
        lda=str(shift / "lda"),
    )


def following_from_words(data: Path) -> pd.DataFrame:
    from following_from_words import follow_rates, sessions
    from crseval.simulation.references import NAMES

    _, rates, _ = follow_rates(
        sessions(100, 12, str(data / KB), False, list(NAMES)), str(data / KB)
    )
    return rates


AUC = ["discriminator_auc", "discriminator_auc_lo", "discriminator_auc_hi"]
# real seekers of other studies, read by the panel beside the arena's
# other real users read by the panel: two other studies' seekers, and the arena's open crowd (against its
# closed crowd: real users of the same CRSs, recruited another way)
OTHER_SEEKERS = ("redial", "inspired", f"{ARENA}/crs_arena_dial_open.json")


def simulated_users(data: Path) -> pd.DataFrame:
    """Per simulated user (the default realistic one and the scripted one of earlier releases): the
    panel's rows (source × member), each source's turns repeated across dialogues, one row per
    counterfactual feature, how each source's dialogues end and, with the template, each turn feature's
    mean beside real users'. With the realistic users the panel also reads two other real seeker
    populations, ReDial's and INSPIRED's, against CRSArena-Dial's, and the arena's open crowd against
    its closed crowd (human vs human: what the bars mean)."""
    from simulated_users import validated

    frames = []
    others = tuple(data / s for s in OTHER_SEEKERS)
    with tempfile.TemporaryDirectory() as tmp:
        for user in ("realistic", "scripted"):
            also = others if user == "realistic" else ()
            tables, _, _ = validated(user, data / ARENA, data / KB, Path(tmp), also)
            disc = tables["shift_user_discriminator"][["source", "member", *AUC]]
            repeats = tables["shift_user_repeats"].assign(
                source=lambda t: "repeats: " + t["source"]
            )
            cf = tables["shift_user_counterfactual"]
            signs = cf.assign(source="sign of " + cf["user_feature"])
            signs = signs[["source", "sim_diff", "sign_agrees", "real_clear"]]
            ends = tables["shift_user_outcomes"].assign(source=lambda t: "ends: " + t["source"])
            align = tables["shift_user_alignment"].query("system == 'template'")
            align = align.assign(source="feature: " + align["user_feature"])
            frames += [
                t.assign(user=user)
                for t in (
                    disc,
                    repeats[["source", "repeated_share"]],
                    signs,
                    ends[["source", "satisfied", "frustrated", "turns"]],
                    align[["source", "simulated", "real"]],
                )
            ]
    out = pd.concat(frames, ignore_index=True).astype({"sign_agrees": float, "real_clear": float})
    return out.fillna({"member": "—"})


def judge_people(data: Path) -> pd.DataFrame:
    """The shipped judge and the LLM's own reading against people on the first 105 CRSArena-Eval
    dialogues (in-sample for the calibrated judge, which was fitted on all 362: a drift detector for the
    engine and its hidden states, not the judge's validity — that is `judge fit`'s grouped CV)."""
    path = str(data / EVAL)
    return table("judge.meta-eval", "meta_eval", data=path, aspects=["dialogue_overall"], limit=105)


CARD = ["label", "my_crs", "vs template", "vs stubborn", "known groups", "real users", "n"]


def card(data: Path) -> pd.DataFrame:
    """The example CRS's card without an LLM, its cells as the card prints them (the README shows it)."""
    example = Path(__file__).resolve().parents[1] / "examples" / "my_crs.py"
    return table("evaluate-crs", "card", target=str(example), no_llm=True)[["metric", *CARD]]


def card_llm(data: Path) -> pd.DataFrame:
    """The LLM card of the example CRS at its defaults: each metric's known groups in the run."""
    example = Path(__file__).resolve().parents[1] / "examples" / "my_crs.py"
    return table("evaluate-crs", "card_evidence", target=str(example))


def _exact(*columns: str, tol: float = 1e-6) -> dict[str, float]:
    return dict.fromkeys(columns, tol)


CHECKS = {
    c.name: c
    for c in (
        Check(
            "criterion",
            "crseval criterion {data}/arena/crsarena_dial "
            "--catalog redial={data}/redial,opendialkg={data}/opendialkg",
            (ARENA, "redial", "opendialkg"),
            criterion,
            ("metric",),
            _exact(*CRITERION[:6], "ranking_tau", "ranking_tau_lo", "ranking_tau_hi", tol=0.0015)
            | _exact(*CRITERION[6:], "battles_tied", "dialogues", "systems", "on_card", tol=0),
        ),
        Check(
            "reliability",
            "crseval reliability analyze {data}/judgments/crs_que/annotations.csv --preset crs-que",
            ("judgments/crs_que/annotations.csv",),
            reliability,
            ("dimension",),
            _exact("n_items", "icc1", "icc1_k", "rel_single", "rel_k", "alpha_ordinal")
            | _exact("rel_k_lo", "rel_k_hi", tol=1e-4),
        ),
        Check(
            "serendipity",
            "crseval serendipity meta-eval {data}/serendipity/serendipity2018",
            ("serendipity/serendipity2018",),
            serendipity,
            ("evaluator",),
            _exact("n", "pearson_%", "pearson_%_lo", "pearson_%_hi", "mae", "rmse"),
        ),
        Check(
            "serendipity_sereneva",
            "crseval serendipity meta-eval {data}/serendipity/serendipity2018 --protocol sereneva "
            "--evaluators random,sog,snpr,purs,desr; the same on {data}/serendipity/taobao "
            "--dataset taobao-serendipity --evaluators random",
            ("serendipity/serendipity2018", "serendipity/taobao"),
            serendipity_sereneva,
            ("dataset", "evaluator"),
            _exact("n", "pearson_%", "pearson_%_lo", "pearson_%_hi", "mae", "rmse"),
        ),
        Check(
            "arena",
            "crseval arena rank {data}/arena/crsarena_dial/votes_open.csv "
            "{data}/arena/crsarena_dial/votes_closed.csv",
            (f"{ARENA}/votes_open.csv", f"{ARENA}/votes_closed.csv"),
            arena,
            ("vote_set", "system"),
            _exact("elo", "bt", "bt_lo", "bt_hi", "rank", "rank_stability", tol=1e-4)
            | _exact("rank_lo", "rank_hi", tol=0),
        ),
        Check(
            "thesis_tas",
            "crseval shift score {data}/preference_shift/logs --kb "
            "{data}/opendialkg/opendialkg_movie_data.json --definition thesis "
            "--lda {data}/preference_shift/lda",
            ("preference_shift/logs", "preference_shift/lda", KB),
            thesis_tas,
            ("system", "metric"),
            _exact("mean", tol=0.0012) | _exact("n", tol=0),
        ),
        Check(
            "following_from_words",
            "python bench/following_from_words.py (100 sessions × 12 turns per reference CRS)",
            (KB,),
            following_from_words,
            ("CRS",),
            _exact("follow rate, logged truth", "follow rate, read from words", "Δ", tol=0.01),
            target={"Δ": (-0.05, 0.05)},
            known="#73: vague openings, liked films named beside a wish and small talk read as wishes",
        ),
        Check(
            "simulated_users",
            "crseval shift validate RUN --human {data}/arena/crsarena_dial "
            "[--also {data}/redial,{data}/inspired,{data}/arena/crsarena_dial/crs_arena_dial_open.json] "
            "(RUN: bench/simulated_users.py's realistic and scripted users, 300 × 12, 4 CRSs)",
            (ARENA, KB, *OTHER_SEEKERS),
            simulated_users,
            ("user", "source", "member"),
            _exact(*AUC, "sim_diff", "repeated_share", "satisfied", "frustrated", tol=0.01)
            | _exact("turns", "simulated", "real", tol=0.02)
            | _exact("sign_agrees", "real_clear", tol=0),
        ),
        Check(
            "judge_people",
            "crseval judge meta-eval {data}/judgments/crsarena_eval/crs_arena_eval_train.json "
            "--aspects dialogue_overall --limit 105",
            (EVAL,),
            judge_people,
            ("aspect", "judge"),
            _exact("pearson", "spearman", tol=0.02) | _exact("n", "failed", tol=0),
            llm=True,
        ),
        Check(
            "card",
            "crseval evaluate-crs examples/my_crs.py --no-llm",
            (),
            card,
            ("metric",),
            _exact(*CARD, tol=0),
        ),
        Check(
            "card_llm",
            "crseval evaluate-crs examples/my_crs.py",
            (),
            card_llm,
            ("metric",),
            _exact("auc", tol=0.05) | _exact("verdict", tol=0),
            llm=True,
        ),
    )
}
