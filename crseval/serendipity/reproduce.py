"""``crseval serendipity reproduce``: the SerenEva paper's experiments on Serendipity-2018 and Taobao.

Per dataset, on one seeded set of answers that every evaluator scores (Serendipity-2018: answers whose
user rated something before, so the history-based proxies exist; Taobao: every answer):

* **Table 2** — random, SOG, SNPR, PURS, DESR (min-max-then-round onto 1–5), the paper's zero-shot
  evaluator and the prompt baselines LLM4Seren and SerenPrompt (styles 1 and 2), and crseval's own
  role-play evaluator beside them: Pearson (with its p-value), MAE and RMSE with bootstrap CIs, a paired
  t-test and a Wilcoxon test of absolute errors against the strongest baseline (lowest MAE);
* **history length** — the zero-shot evaluator with k ∈ {1, 3, 5, 10, 20} history items (a curve with CIs);
* **auxiliary data** — the zero-shot evaluator with one auxiliary line at a time (popularity, similarity,
  interaction type; Taobao: curiosity, personality; ``profiles``: LLM-summarised long-/short-term tastes);
* **item popularity and similarity** — the zero-shot evaluator's Pearson per tercile of popularity and of
  genre distance to the history;
* **ensembles** — for every size m, the mean Pearson over all subsets of m of the LLM evaluators.

Runs: ``runs`` ratings per request with different seeds, averaged — at temperature 0 with
probability-weighted ratings they coincide, so one is computed and the report says so. Every rating is
an append-only record keyed by its request, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import Hashable, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crseval.core.config import CommaList
from crseval.core.job import JobSpec, Progress
from crseval.core.output import Output
from crseval.core.signature import content_hash
from crseval.core.registry import shown_columns
from crseval.data import load_dataset
from crseval.data.base import SerendipityStudy
from crseval.llm import ChatRequest, LLMClient, LLMConfig
from crseval.runs.context import RunContext
from crseval.serendipity.context import genre_distance, has_history, history, popularity
from crseval.serendipity.evaluator import LLMEvaluator, few_shot, llm_scores, profiles
from crseval.serendipity.job import predictions
from crseval.serendipity.meta import _pearson, meta_evaluate, with_ci
from crseval.serendipity.prompts import STYLES, Style, style_request
from crseval.serendipity.proxies import signatures
from crseval.core.keys import key

PROXY_NAMES = ["random", "sog", "snpr", "purs", "desr"]
FEW_SHOT, SHOTS = "sereneva-fewshot", 5  # the paper's few-shot rows: its prompt after five examples
HISTORY_K = (1, 3, 5, 10, 20)
PARTS = ("table2", "history", "aux", "items", "ensembles", "profiles")
DEFAULT_PARTS = ["table2", "history", "aux", "items", "ensembles"]


class ReproduceConfig(BaseModel):
    """The SerenEva paper's experiments (Table 2, history length, auxiliary data, item analyses, ensembles)."""

    model_config = ConfigDict(extra="forbid")
    serendipity2018: Path | None = Field(
        None, description="Serendipity-2018 folder (answers + movies.csv)."
    )
    taobao: Path | None = Field(None, description="Taobao Serendipity folder or CSV.")
    sample: int | None = Field(
        None,
        ge=5,
        description="Evaluate a seeded sample of N answers per dataset "
        "(default: every eligible answer).",
        json_schema_extra={"signed": True},
    )
    parts: CommaList = Field(
        DEFAULT_PARTS,
        description="Comma-separated: " + ", ".join(PARTS) + " (profiles: one "
        "LLM summary per answer, the costliest part, off by default).",
        json_schema_extra={"signed": True},
    )
    runs: int = Field(
        5,
        ge=1,
        le=20,
        description="Ratings per request, averaged (at temperature 0 with "
        "probability-weighted ratings they coincide: computed once).",
    )
    llm: LLMConfig = LLMConfig()
    protocol: Literal["crseval", "sereneva"] = Field(
        "crseval",
        description="Table 2's proxies and random baseline: crseval's definitions or the paper's "
        "('sereneva': the last 10 items, the nearest one's distance, every answer scored, random 1–5).",
        json_schema_extra={"signed": True},
    )
    n_boot: int = Field(
        1000,
        ge=0,
        description="Bootstrap resamples for the CIs.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed for the sample, the random baseline and the bootstrap.",
        json_schema_extra={"signed": True},
    )

    @field_validator("parts")
    @classmethod
    def _parts(cls, v: list[str]) -> list[str]:
        bad = sorted(set(v) - set(PARTS))
        if bad:
            raise ValueError(f"unknown part(s) {bad}; one of {', '.join(PARTS)}")
        return v

    @model_validator(mode="after")
    def _some_data(self) -> "ReproduceConfig":
        if self.serendipity2018 is None and self.taobao is None:
            raise ValueError("give --serendipity2018 DIR and/or --taobao DIR")
        return self


def eligible_rows(study: SerendipityStudy, proxies: dict[str, np.ndarray]) -> np.ndarray:
    """Answers every evaluator can score: a ground truth and every proxy's score."""
    ok = np.isfinite(study.answers["ground_truth"].to_numpy(float))
    for p in proxies.values():
        ok &= np.isfinite(np.asarray(p, float))
    return np.flatnonzero(ok)


class Rater:
    """Rates requests ``runs`` times each (once when deterministic), as resumable records keyed by the request."""

    STREAM = "serendipity_reproduce_ratings"

    def __init__(
        self, client: LLMClient, ctx: RunContext, runs: int, temperature: float, progress: Progress
    ):
        self.client, self.ctx, self.progress = client, ctx, progress
        self.runs = 1 if temperature == 0 and client.backend.supports_choice_probs else runs

    def rate(
        self, what: str, requests: list[tuple[Hashable, ChatRequest, Style]]
    ) -> dict[Hashable, float]:
        """Mean 1–5 rating per id, in the given order (missing where every run failed; failures are recorded)."""
        keyed = {
            i: (content_hash(repr((req.messages, style.scale)).encode()), req, style)
            for i, req, style in requests
        }
        first: dict[str, Hashable] = {}  # identical requests are rated once, in the given order
        for i, (h, _, _) in keyed.items():
            first.setdefault(h, i)
        records = self.ctx.stream(self.STREAM)
        work = [
            (key(keyed[i][0], run), (i, run)) for i in first.values() for run in range(self.runs)
        ]

        def one(w) -> dict:
            i, run = w
            _, req, style = keyed[i]
            res = self.client.rate(replace(req, seed=run), style.scale)
            return {
                "score": None if res.value is None else style.to_likert(res.value),
                "method": res.method,
                "error": res.error,
            }

        progress = self.progress(f"LLM ratings: {what}", len(work))
        scores: dict[str, list[float]] = {}
        for r in records.run(work, one, mapper=self.client.map, progress=progress):
            if r["score"] is not None:
                scores.setdefault(r["key"].rsplit("|", 1)[0], []).append(r["score"])
        return {i: float(np.mean(scores[h])) for i, (h, _, _) in keyed.items() if h in scores}


def _column(values: dict, rows: np.ndarray, tag: str) -> np.ndarray:
    return np.array([values.get((int(r), tag), np.nan) for r in rows], float)


def _pearson_ci(pred: np.ndarray, truth: np.ndarray, n_boot: int, seed: int) -> dict:
    ok = np.isfinite(pred) & np.isfinite(truth)
    return {
        "n": int(ok.sum()),
        **with_ci("pearson_%", _pearson, pred[ok], truth[ok], n_boot, np.random.default_rng(seed)),
    }


def ensemble_curve(preds: dict[str, np.ndarray], truth: np.ndarray) -> pd.DataFrame:
    """Per size m: mean, min and max Pearson over every subset of m evaluators (averaged per answer)."""
    names, rows = list(preds), []
    for m in range(1, len(names) + 1):
        rs = [
            _pearson(np.mean([preds[n] for n in combo], axis=0), truth)
            for combo in combinations(names, m)
        ]
        rows.append(
            {
                "ensemble_size": m,
                "subsets": len(rs),
                "pearson_%": float(np.nanmean(rs)),
                "pearson_%_min": float(np.nanmin(rs)),
                "pearson_%_max": float(np.nanmax(rs)),
            }
        )
    return pd.DataFrame(rows)


def _by_tercile(
    study: SerendipityStudy,
    rows: np.ndarray,
    pred: np.ndarray,
    truth: np.ndarray,
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    a = study.answers.iloc[rows]
    pop = a["item"].map(popularity(study)).to_numpy(float)
    sim = np.array(
        [
            np.nan if (j := genre_distance(study, u, i, 10)) is None else j
            for u, i in zip(a["user"], a["item"])
        ],
        float,
    )
    out = []
    for factor, values in (("popularity", pop), ("genre distance to history", sim)):
        ok = np.isfinite(values)
        if ok.sum() < 9:
            continue
        bins = pd.qcut(
            pd.Series(values[ok]).rank(method="first"), 3, labels=["low", "middle", "high"]
        )
        for level in ("low", "middle", "high"):
            sel = np.flatnonzero(ok)[(bins == level).to_numpy()]
            out.append(
                {
                    "factor": factor,
                    "tercile": level,
                    **_pearson_ci(pred[sel], truth[sel], n_boot, seed),
                }
            )
    return pd.DataFrame(out)


def _plot_curve(
    x,
    table: pd.DataFrame,
    *,
    xlabel: str,
    title: str,
    path: Path,
    band=("pearson_%_lo", "pearson_%_hi"),
):
    from crseval.plotting import plt, save, style

    style()
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    for name, part in table.groupby("dataset", sort=False):
        ax.plot(part[x], part["pearson_%"], marker="o", label=name)
        ax.fill_between(part[x], part[band[0]], part[band[1]], alpha=0.2)
    ax.axhline(0, color="#333333", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Pearson r with ground truth (%)")
    ax.set_title(title)
    ax.legend()
    save(fig, path)


class Reproduction:
    """One dataset's experiments, accumulated into tables."""

    def __init__(self, config: ReproduceConfig, ctx: RunContext, rater: Rater, client: LLMClient):
        self.config, self.ctx, self.rater, self.client = config, ctx, rater, client
        self.tables: dict[str, list[pd.DataFrame]] = {}
        self.notes: list[str] = []
        self.data: list[str] = []  # the datasets' content signatures

    def add(self, table: str, df: pd.DataFrame, dataset: str) -> None:
        if len(df):
            self.tables.setdefault(table, []).append(df.assign(dataset=dataset))

    def _answers(
        self, name: str, study: SerendipityStudy, proxies: dict[str, np.ndarray]
    ) -> np.ndarray:
        """The seeded answers to evaluate (among those every evaluator can score), described in the notes."""
        cfg = self.config
        eligible = eligible_rows(study, proxies)
        rng = np.random.default_rng(cfg.seed)
        rows = (
            np.sort(rng.choice(eligible, cfg.sample, replace=False))
            if cfg.sample and cfg.sample < len(eligible)
            else eligible
        )
        self.notes.append(
            f"{name}: {len(rows)} answers evaluated (of {len(eligible)} that every evaluator can score, "
            f"{len(study.answers)} in the study)"
            + ("" if has_history(study) else "; no history is published: prompts show none")
        )
        if has_history(study):
            lengths = np.array(
                [
                    len(history(study, *study.answers.iloc[r][["user", "item"]], 10_000))
                    for r in rows
                ]
            )
            self.notes.append(
                f"{name}: the histories are the user's earlier answers in the file (MovieLens's full "
                f"rating history is not in it): {np.median(lengths):g} items at the median, "
                f"{lengths.max()} at most, so k beyond that shows the same history"
            )
        return rows

    def dataset(self, name: str, path: Path, progress: Progress) -> None:
        cfg = self.config
        study = load_dataset(name, path)
        self.data.append(study.info.signature())
        proxies = (
            predictions(study, PROXY_NAMES, seed=cfg.seed, protocol=cfg.protocol)
            if not study.unavailable
            else predictions(study, ["random"], seed=cfg.seed, protocol=cfg.protocol)
        )
        rows = self._answers(name, study, proxies)
        aux_names, variants = _variants(study, cfg.parts)
        prof = (
            profiles(
                study, self.client, [tuple(study.answers.iloc[r][["user", "item"]]) for r in rows]
            )
            if "profiles" in aux_names
            else {}
        )

        # answer-major: all variants of one answer in a row, those sharing the prefix (role, history, item) first,
        # so a llama.cpp backend computes that prefix once for them
        def request(r: int, tag: str, style: Style, k: int, aux: str | None) -> ChatRequest:
            row = study.answers.iloc[r]
            return style_request(
                study,
                row,
                style,
                k=k,
                aux=aux,
                temperature=cfg.llm.temperature,
                profile=prof.get((row["user"], row["item"])),
                # the paper's five examples: other users' answers, seeded per answer
                shots=few_shot(study, row["user"], SHOTS, cfg.seed + int(r))
                if tag == FEW_SHOT
                else (),
            )

        reqs = [
            ((int(r), tag), request(r, tag, style, k, aux), style)
            for r in rows
            for tag, style, k, aux in variants
        ]
        rated = self.rater.rate(name, reqs)
        col = {tag: _column(rated, rows, tag) for tag, *_ in variants}
        own = llm_scores(
            study,
            LLMEvaluator(self.client, self.ctx, runs=self.rater.runs),
            seed=cfg.seed,
            name="llm",
            rows=[int(r) for r in rows],
            progress=progress(f"LLM ratings: {name}, crseval's llm", self.rater.runs * len(rows)),
        )
        llm_preds = {s: col[s] for s in STYLES} | {FEW_SHOT: col[FEW_SHOT], "llm": own[rows]}
        self._tables(name, study, rows, proxies, col, llm_preds, aux_names)

    def _tables(self, name, study, rows, proxies, col, llm_preds, aux_names) -> None:
        """The dataset's rows of the reproduction's tables, from every variant's ratings (``col``)."""
        cfg = self.config
        truth = study.answers["ground_truth"].to_numpy(float)[rows]
        if "table2" in cfg.parts:
            preds = {n: np.asarray(p, float)[rows] for n, p in proxies.items()} | llm_preds
            self.add(
                "serendipity_table2",
                meta_evaluate(preds, truth, n_boot=cfg.n_boot, seed=cfg.seed),
                name,
            )
        if "history" in cfg.parts and has_history(study):
            curve = [
                {
                    "history_k": k,
                    **_pearson_ci(
                        col["sereneva" if k == 10 else f"history k={k}"],
                        truth,
                        cfg.n_boot,
                        cfg.seed,
                    ),
                }
                for k in HISTORY_K
            ]
            self.add("serendipity_history_k", pd.DataFrame(curve), name)
        if aux_names:
            settings = [("none (zero-shot)", col["sereneva"])] + [
                (a, col[f"sereneva + {a}"]) for a in aux_names
            ]
            self.add(
                "serendipity_aux",
                pd.DataFrame(
                    [
                        {
                            "setting": a,
                            **_pearson_ci(p, truth, cfg.n_boot, cfg.seed),
                            "mae": float(np.nanmean(np.abs(p - truth))),
                        }
                        for a, p in settings
                    ]
                ),
                name,
            )
            llm_preds |= {f"sereneva + {a}": col[f"sereneva + {a}"] for a in aux_names}
        if "items" in cfg.parts and has_history(study):
            self.add(
                "serendipity_by_item",
                _by_tercile(study, rows, col["sereneva"], truth, cfg.n_boot, cfg.seed),
                name,
            )
        if "ensembles" in cfg.parts:
            self.add("serendipity_ensemble_size", ensemble_curve(llm_preds, truth), name)


def _variants(study, parts) -> tuple[list[str], list[tuple[str, Style, int, str | None]]]:
    """(the auxiliary lines asked about, every prompt variant: (tag, style, k, auxiliary line)); the
    zero-shot prompt at k = 10 is Table 2's."""
    zero = STYLES["sereneva"]
    aux_names = [
        a
        for a in (
            ("popularity", "similarity", "interaction")
            if has_history(study)
            else ("curiosity", "personality")
        )
        if "aux" in parts
    ]
    if "profiles" in parts and has_history(study):
        aux_names.append("profiles")
    variants = (
        [(s.name, s, 10, None) for s in STYLES.values()]
        + [(FEW_SHOT, zero, 10, None)]
        + [(f"sereneva + {a}", zero, 10, a) for a in aux_names]
    )
    if "history" in parts and has_history(study):
        variants += [(f"history k={k}", zero, k, None) for k in HISTORY_K if k != 10]
    return aux_names, variants


def _bars(out: Output, table: str, t: pd.DataFrame, label: str) -> None:
    """The zero-shot evaluator's Pearson per auxiliary line or per item tercile, as a bar figure."""
    from crseval.plotting import bar_with_ci

    names = [
        f"{d}: {f + ' ' if 'factor' in t else ''}{x}"
        for d, f, x in zip(t["dataset"], t.get("factor", [""] * len(t)), t[label])
    ]
    aux = table == "serendipity_aux"
    title = "Zero-shot evaluator: " + (
        "auxiliary data" if aux else "item popularity and similarity (terciles)"
    )
    out.figure(
        table,
        lambda path: bar_with_ci(
            names,
            t["pearson_%"].fillna(0).tolist(),
            t["pearson_%_lo"].fillna(0).tolist(),
            t["pearson_%_hi"].fillna(0).tolist(),
            ylabel="Pearson r (%)",
            title=title,
            path=path,
        ),
        "Pearson (%) of the zero-shot evaluator "
        + (
            "with one auxiliary line at a time"
            if aux
            else "per tercile of item popularity and of genre distance to the history"
        )
        + ", with 95 % bootstrap CIs",
    )


def _figures(out: Output, tables: dict[str, pd.DataFrame]) -> None:
    if "serendipity_history_k" in tables:
        out.figure(
            "serendipity_history_k",
            lambda path: _plot_curve(
                "history_k",
                tables["serendipity_history_k"],
                xlabel="history length k (items before the target)",
                title="Zero-shot evaluator vs history length",
                path=path,
            ),
            "Pearson (%) of the paper's zero-shot evaluator with k history items, "
            "with 95 % bootstrap bands",
        )
    if "serendipity_ensemble_size" in tables:
        out.figure(
            "serendipity_ensemble_size",
            lambda path: _plot_curve(
                "ensemble_size",
                tables["serendipity_ensemble_size"],
                xlabel="ensemble size m",
                title="Ensembles of LLM evaluators",
                path=path,
                band=("pearson_%_min", "pearson_%_max"),
            ),
            "Mean Pearson (%) over every subset of m LLM evaluators (their "
            "predictions averaged per answer); band: the worst and best subset",
        )
    for table, label in (("serendipity_aux", "setting"), ("serendipity_by_item", "tercile")):
        if table in tables:
            _bars(out, table, tables[table], label)


def run(config: ReproduceConfig, ctx: RunContext) -> Output:
    client = ctx.llm(config.llm, "serendipity evaluator")
    try:
        rater = Rater(client, ctx, config.runs, config.llm.temperature, ctx.progress)
        rep = Reproduction(config, ctx, rater, client)
        for name, path in (
            ("serendipity2018", config.serendipity2018),
            ("taobao-serendipity", config.taobao),
        ):
            if path is not None:
                rep.dataset(name, path, ctx.progress)
        identity = client.identity()
    finally:
        client.close()
    tables = {t: pd.concat(parts, ignore_index=True) for t, parts in rep.tables.items()}
    out = Output(
        "SerenEva reproduction",
        tables=dict(tables),
        signature={
            "data": "+".join(rep.data),
            "llm": {**identity, "runs": rater.runs},
            "metric": signatures(PROXY_NAMES),
        },
    )
    runs_note = (
        f"runs: {config.runs} requested; at temperature 0 the probability-weighted ratings of every run "
        "coincide, so each was computed once"
        if rater.runs == 1 and config.runs > 1
        else f"runs: the mean of {rater.runs} ratings per request"
    )
    _figures(out, tables)
    out.section(
        "SerenEva reproduction",
        "The SerenEva paper's experiments. Table 2: every evaluator on the same answers; Pearson (%) with its "
        "p-value, MAE and RMSE with 95 % bootstrap CIs; p (t-test) and p (Wilcoxon): absolute errors against the "
        "best baseline (lowest MAE). Proxies are min-max mapped to 1–5 and rounded; prompt styles' answers are "
        "mapped linearly onto 1–5. The evaluators see only the user's past before each answer "
        "(crseval/serendipity/context.py). " + runs_note + ". " + " ".join(rep.notes),
        tables=list(tables),
        figures=list(out.figures),
    )
    summary = (
        tables["serendipity_table2"][
            shown_columns("serendipity_table2", tables["serendipity_table2"].columns)
        ]
        if "serendipity_table2" in tables
        else next(iter(tables.values()))
    )
    out.summary, out.notes = summary.round(4), [runs_note, *rep.notes]
    return out


JOB = JobSpec(
    "serendipity.reproduce",
    ReproduceConfig,
    run,
    "runs/serendipity-reproduce",
    "The SerenEva paper's experiments on Serendipity-2018 and Taobao: Table 2 (proxies, the zero-shot "
    "evaluator, LLM4Seren, SerenPrompt) with CIs and tests, history length, auxiliary data, item analyses "
    "and ensemble sizes.",
    "SerenEva reproduction",
    uses_llm=lambda c: True,
)
