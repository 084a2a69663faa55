"""The main job on embedded defaults: bundled sample data + the embedded LLM → a run directory and
its report. It grows with each capability; every step is resumable and cached."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.arena.job import ArenaConfig, signature_part as arena_part
from crseval.core.job import JobSpec, Progress, Result
from crseval.dialogues.job import DialogueMetricsConfig, signature_part as dialogues_part
from crseval.core.signature import make_signature
from crseval.data import load_dataset
from crseval.judge.judging import Judge, judge_items
from crseval.judge.rubric import RUBRICS
from crseval.llm import LLMConfig, make_client
from crseval.reliability.analysis import analyze_into, signature_part
from crseval.plotting import OKABE_ITO, plt, save, style
from crseval.runs.store import RunStore, entries
from crseval.stats.bootstrap import bootstrap_ci
from crseval.stats.correlation import correlation_ci

RELIABILITY_BOOT = 100
BEHAVIOR_DIALOGUES = ("s01", "s04")
SERENDIPITY_LLM_ANSWERS = 6
SHIFT_SESSIONS, SHIFT_TURNS = 2, 3
ARENA_BOOT = 200
DIALOGUE_METRICS = DialogueMetricsConfig(
    data=["sample", "the demo's shift sessions"], catalog="sample"
)


class DemoConfig(BaseModel):
    """The demo: every capability, small, on the bundled sample and the embedded LLM."""

    model_config = ConfigDict(extra="forbid")
    llm: LLMConfig = LLMConfig()
    seed: int = Field(0, description="Seed of every step.")


def run(config: DemoConfig, store: RunStore, progress: Progress) -> Result:
    """Run the demo into ``store`` (resuming what is already there)."""
    sample = load_dataset("sample")
    client = make_client(config.llm, store.cache_path)
    try:
        rubric = RUBRICS["overall"]
        sig = make_signature(
            data=f"{sample.dialogues.info.signature()}+{sample.ratings.info.signature()}",
            llm={
                **client.identity(),
                "T": config.llm.temperature,
                "seed": config.seed,
                "prompt": rubric.prompt_hash(),
            },
            metric={
                "judge": f"{rubric.name}(scale={rubric.scale[0]}-{rubric.scale[1]},rating=expected|sampled)",
                "reliability": signature_part(n_boot=RELIABILITY_BOOT, seed=config.seed),
                "arena": arena_part(
                    ArenaConfig(votes=["votes.csv"], n_boot=ARENA_BOOT, seed=config.seed)
                ),
                "dialogues": dialogues_part(DIALOGUE_METRICS),
            },
        )
        store.save_signature(sig)
        dialogues = sample.dialogues.dialogues
        records = judge_items(
            [(d.id, d, None) for d in dialogues],
            [rubric.name],
            [Judge("judge", client)],
            store,
            seed=config.seed,
            progress=progress("LLM judge: rating sample dialogues", len(dialogues)),
        )
        _judge_tables(store, sample, records)
        analyze_into(
            store,
            sample.ratings,
            n_boot=RELIABILITY_BOOT,
            seed=config.seed,
            n_clusters=2,
            progress=progress,
        )
        _behavior(store, dialogues, client, config.seed, progress)
        _serendipity(store, sample.serendipity, client, config.seed, progress)
        usage = pd.DataFrame(
            [
                {
                    **client.stats.as_dict(),
                    "backend": client.identity()["backend"],
                    "model": client.identity()["model"],
                }
            ]
        )
        store.write_table("llm_usage", usage)
    finally:
        client.close()
    _shift(store, config, progress)
    _validity(store, config.seed, progress)
    _arena(store, config.seed, progress)
    _dialogue_metrics(store, progress)
    sections = pd.DataFrame(
        [
            {"section": s["title"], "tables": ", ".join(n for n, _ in entries(s, "tables"))}
            for s in store.sections()
        ]
    )
    return Result("demo", "demo sections", sections, sig, store.root)


def _shift(store: RunStore, config: DemoConfig, progress: Progress) -> None:
    """A small preference-shift comparison on the bundled catalogue: the LLM CRS against the no-LLM
    template baseline, the simulated user changing its mind, TAS + the judge on personalization (the
    full run rates proactiveness and coherence too; left out here to keep the demo quick)."""
    from crseval.adaptation.config import ShiftConfig
    from crseval.adaptation.job import shift_into

    llm = config.llm.model_dump()
    cfg = ShiftConfig.model_validate(
        {
            "seed": config.seed,
            "sessions": SHIFT_SESSIONS,
            "turns": SHIFT_TURNS,
            "workers": 1,
            "n_boot": 200,
            "simulator": {"shift_every": [1, 2]},
            "models": [
                {"name": "llm-crs", "llm": llm, "shortlist": 3},
                {"name": "template-baseline", "kind": "template", "shortlist": 3},
            ],
            "judge": {"aspects": ["personalization"], "judges": [{"name": "judge", "llm": llm}]},
        }
    )
    shift_into(
        cfg,
        store,
        progress,
        part_of="demo",
        title=f"Preference-shift adaptation ({SHIFT_SESSIONS} sessions × {SHIFT_TURNS} turns per model; "
        "use `crseval shift run` for real numbers)",
    )


def _validity(store: RunStore, seed: int, progress: Progress) -> None:
    """The demo's simulated users against the bundled human dialogues (`crseval shift validate` at small size)."""
    from crseval.adaptation.job import sessions
    from crseval.adaptation.validate import human_turns, validate_into
    from crseval.data.kb import load_kb

    ds, human = human_turns("sample")
    records = [r for r in sessions(store) if not r.get("errors") and r["turns"]]
    validate_into(
        store,
        records,
        load_kb(None),
        {},
        ds,
        human,
        seed=seed,
        progress=progress,
        source="the demo's shift sessions",
        title="Simulator validity (demo sessions against the bundled dialogues; use `crseval shift validate`)",
    )


def _arena(store: RunStore, seed: int, progress: Progress) -> None:
    """Rankings from the bundled simulated pairwise votes (no LLM)."""
    from crseval.arena.job import rank_into
    from crseval.data.sample import sample_dir
    from crseval.data.votes import load_votes

    votes = load_votes(sample_dir() / "votes.csv")
    rank_into(
        store,
        [("sample votes", votes)],
        ArenaConfig(votes=[str(votes.info.path)], n_boot=ARENA_BOOT, seed=seed),
        progress,
        title="Arena rankings (simulated sample votes)",
    )


def _dialogue_metrics(store: RunStore, progress: Progress) -> None:
    """What the demo's CRSs (shift sessions) and the bundled human recommenders name, in the bundled catalogue."""
    from crseval.data.any_dialogues import read_dialogues
    from crseval.data.catalogs import load_catalog
    from crseval.dialogues.job import measure_into

    measure_into(
        store,
        [read_dialogues("sample"), read_dialogues(store.root)],
        load_catalog("sample"),
        DIALOGUE_METRICS,
        progress,
        title="What the systems recommend inside dialogues (demo sessions and the bundled dialogues; use "
        "`crseval dialogues metrics`)",
    )


def _behavior(store: RunStore, dialogues, client, seed: int, progress: Progress) -> None:
    """A small behavior-alignment run: the pair classifier learns from the bundled strategy-labelled
    dialogues; the LLM answers every recommender turn of two of them; both BA variants are reported."""
    from crseval.behavior.classifier import labelled_sentences
    from crseval.behavior.evaluate import (
        contexts,
        evaluate_responses,
        generate_responses,
        write_tables,
    )
    from crseval.behavior.implicit import PairClassifier
    from crseval.behavior.pairs import make_pairs
    from crseval.text.embed import get_embedder

    sentences = labelled_sentences(dialogues)
    pair = PairClassifier(get_embedder(), seed=seed).fit(
        sentences, make_pairs(sentences, 2000, seed=seed)
    )
    rare = (
        f" Strategies found in one sample dialogue only ({', '.join(pair.unseen_in_folds)}) cannot be in every "
        "training fold of the pair head's out-of-fold posteriors; where their dialogue is held out, the model "
        "has not seen them."
        if pair.unseen_in_folds
        else ""
    )
    evaluated = [d for d in dialogues if d.id in BEHAVIOR_DIALOGUES]
    ctxs = contexts(evaluated)
    responses = generate_responses(
        ctxs, client, store, seed=seed, progress=progress("LLM as recommender", len(ctxs))
    )
    metrics, table = evaluate_responses(
        evaluated, responses.dropna(subset=["response"]), pair, reference=dialogues
    )
    tables = write_tables(store, metrics, table)
    store.add_section(
        "Behavior alignment with the human recommender",
        f"The LLM answered the {len(ctxs)} recommender turns of sample dialogues {', '.join(BEHAVIOR_DIALOGUES)}. "
        "Explicit BA compares the strategy of its response (strategy classifier trained on the bundled labelled "
        "dialogues) with the human's; implicit BA is the pair classifier's probability that both responses use the "
        "same strategy. The first turn of each dialogue is not counted. (A toy-sized training set: use "
        "`crseval behavior run` with INSPIRED for real numbers.)" + rare,
        tables=tables,
    )


def _serendipity(store: RunStore, study, client, seed: int, progress: Progress) -> None:
    """Proxy metrics on the whole bundled user study; the LLM, playing each user, rates a few answers."""
    from crseval.serendipity.evaluator import llm_scores
    from crseval.serendipity.job import predictions, write_results

    preds = predictions(study, ["random", "sog", "snpr", "purs", "desr"], seed=seed)
    rows = list(range(0, len(study.answers), len(study.answers) // SERENDIPITY_LLM_ANSWERS))[
        :SERENDIPITY_LLM_ANSWERS
    ]
    preds["llm"] = llm_scores(
        study,
        client,
        store,
        runs=1,
        seed=seed,
        rows=rows,
        progress=progress("LLM as the user (serendipity)", len(rows)),
    )
    write_results(store, study, preds, n_boot=200, seed=seed)


def _plot_judge(scores: pd.DataFrame, path) -> None:
    style()
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for good, color, name in (
        (True, OKABE_ITO[0], "accepted and liked"),
        (False, OKABE_ITO[5], "other outcomes"),
    ):
        d = scores[(scores["outcome"] == "accept_rating_good") == good]
        ax.scatter(d["human_satisfaction"], d["llm_overall"], color=color, label=name, s=40)
        for r in d.itertuples():
            ax.annotate(
                r.dialogue,
                (r.human_satisfaction, r.llm_overall),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
    ax.set_xlabel("mean human satisfaction (1–5)")
    ax.set_ylabel("LLM judge, overall (1–5)")
    ax.legend(fontsize=8, title="seeker's outcome", title_fontsize=8)
    save(fig, path)


def _judge_tables(store: RunStore, sample, records: list[dict]) -> None:
    human = sample.ratings.dimension("satisfaction").groupby("item")["value"].mean()
    outcome = {d.id: d.metadata.get("outcome") for d in sample.dialogues}
    scores = pd.DataFrame(
        [
            {
                "dialogue": r["item"],
                "outcome": outcome.get(r["item"]),
                "llm_overall": r["score"],
                "method": r["method"],
                "error": r["error"] or "",
                "human_satisfaction": human.get(r["item"], np.nan),
            }
            for r in records
        ]
    )
    scores = scores.sort_values("dialogue").reset_index(drop=True)
    store.write_table("judge_scores", scores)
    ok = scores.dropna(subset=["llm_overall"])
    good = ok["outcome"] == "accept_rating_good"
    rows = [
        {
            "group": label,
            "n": len(grp),
            **dict(zip(("mean", "ci_lo", "ci_hi"), bootstrap_ci(grp["llm_overall"]))),
        }
        for label, grp in [
            ("seeker accepted and liked the movie", ok[good]),
            ("other outcomes", ok[~good]),
        ]
    ]
    store.write_table("judge_summary", pd.DataFrame(rows))
    both = ok.dropna(subset=["human_satisfaction"])
    agree = [
        {
            "with": "mean human satisfaction",
            "n": len(both),
            **dict(
                zip(
                    (m, f"{m}_lo", f"{m}_hi", f"{m}_p"),
                    correlation_ci(both["llm_overall"], both["human_satisfaction"], m, seed=0),
                )
            ),
        }
        for m in ("pearson", "spearman")
    ]
    store.write_table("judge_agreement", pd.DataFrame([{**agree[0], **agree[1]}]))
    _plot_judge(scores, store.figure_path("judge_scores"))
    n_err = int((scores["error"] != "").sum())
    store.add_section(
        "LLM judge on the sample dialogues",
        f"Each bundled dialogue was rated 1–5 by the configured LLM ({len(scores)} ratings, {n_err} failed and "
        f"recorded). Ratings are probability-weighted over the digits 1–5 where the backend exposes next-token "
        f"probabilities (method 'expected'), otherwise one sampled digit (method 'sampled').",
        tables=[
            (
                "judge_summary",
                "Mean LLM judge score by the seeker's outcome, with 95 % bootstrap CIs",
            ),
            (
                "judge_agreement",
                "Agreement of the LLM judge with the mean human satisfaction (95 % bootstrap "
                "CIs; 8 dialogues: illustrative only)",
            ),
            (
                "judge_scores",
                "The judge's score and the human satisfaction of every sample dialogue",
            ),
        ],
        figures=[
            (
                "judge_scores",
                "The LLM judge's overall score against the mean human satisfaction of each "
                "sample dialogue; colour: the seeker's outcome",
            )
        ],
    )


JOB = JobSpec(
    "demo",
    DemoConfig,
    run,
    "runs/demo",
    "Run every capability, small, on the bundled sample data and the "
    "embedded LLM; an interrupted demo resumes.",
    "crseval demo",
    uses_llm=lambda c: True,
)
