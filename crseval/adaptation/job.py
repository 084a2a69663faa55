"""The preference-shift job: simulate (or import) sessions → score each (TAS + LLM judge panel) →
``records/results.jsonl`` (one line per session, exactly once, resumable) → tables, figures, report.

Sessions run concurrently through an executor (local threads or Ray); each finished session is scored
and judged at once and appended, so an interrupted run loses at most the sessions in flight.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crseval.core.keys import key
from crseval.core.numbers import counted
from crseval.adaptation.analysis import analysis, wide_metrics
from crseval.adaptation.config import JudgeSection, ScoringSection, ShiftConfig
from crseval.adaptation.scoring import STREAM, SessionScoring
from crseval.data.session_logs import import_logs
from crseval.core.cancel import cancelled
from crseval.core.config import validate
from crseval.core.errors import CrsevalError, WorkFailed
from crseval.core.order import in_key_order
from crseval.core.job import JobSpec, Progress
from crseval.core.output import Output
from crseval.judge.config import JudgeSpec
from crseval.llm.planning import done_calling
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext
from crseval.runs.view import Run
from crseval.simulation.executors import run_sessions
from crseval.simulation.plugins import load_callable
from crseval.data.catalogue_note import catalogue_line
from crseval.data.catalogue_map import catalogue_of, catalogues
from crseval.data.kb import load_kb
from crseval.simulation.session import close_clients

SCORING = "scoring.json"  # how a shift run scored (resolved scoring section and catalogue), read by validate
SCORE_BATCH = 1000  # sessions scored at once by `shift score` (large enough for the forked workers)


def _models_signature(config: ShiftConfig) -> dict[str, Any]:
    return {
        m.name: (
            {
                "kind": m.kind,
                "prompt": m.prompt,
                "shortlist": m.shortlist,
                **({"llm": m.llm.signature()} if m.kind == "llm" else {}),
                **({"target": m.target} if m.target else {}),
                **({"url": m.url} if m.url else {}),
            }
        )
        for m in config.models
    }


def _simulate(config: ShiftConfig, ctx: RunContext, scoring: SessionScoring) -> None:
    """Run the sessions not yet recorded (with ``retry_failed``, also those recorded as failed); each is
    scored, judged and recorded as soon as it finishes."""
    total = config.sessions * config.repeats
    work = [(key(m.name, s), (m.name, s)) for s in range(total) for m in config.models]
    code = _code_versions(config, ctx)

    def simulated(pending: list, keep: Callable[[dict[str, Any]], None]) -> None:
        post = ThreadPoolExecutor(max_workers=max(1, config.workers))
        try:
            scored = []
            for _, rec in run_sessions(
                config.session_part(),
                [task for _, task in pending],
                executor=config.executor,
                workers=config.workers,
                cache_path=ctx.llm_cache,
                address=config.ray_address,
            ):
                if rec["model"] in code:  # which version of the CRS's file answered this session
                    rec = {**rec, "code": code[rec["model"]]}
                scored.append(post.submit(lambda r: keep(scoring.finish(r)), rec))
            for future in scored:
                future.result()
        finally:
            post.shutdown(wait=not cancelled(), cancel_futures=True)
            close_clients()

    ctx.stream(STREAM).run_batches(
        work,
        simulated,
        progress=ctx.progress("preference-shift sessions", len(work)),
        retry=(lambda r: bool(r.get("errors"))) if config.retry_failed else None,
    )


def _code_versions(config: ShiftConfig, ctx: RunContext) -> dict[str, str]:
    """Each callable model's code as this run knows it now (``file.py@hash``; after ``--retry-failed`` on a
    fixed file, the new version)."""
    data = (ctx.provenance or {}).get("data", {})
    return {
        m.name: data[f"models.{i}.target"]
        for i, m in enumerate(config.models)
        if f"models.{i}.target" in data
    }


def _answered_by(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per model whose sessions were answered by more than one version of its code: sessions per version
    (the signature says which version answered what)."""
    out: dict[str, dict[str, int]] = {}
    for r in records:
        if r.get("code"):
            counts = out.setdefault(r["model"], {})
            counts[r["code"]] = counts.get(r["code"], 0) + 1
    return {m: dict(sorted(c.items())) for m, c in out.items() if len(c) > 1}


def shift_output(config: ShiftConfig, ctx: RunContext) -> Output:
    """Run (or resume) a preference-shift evaluation into ``ctx`` (its records); what it computed."""
    kb = load_kb(config.kb)  # before the first write: a bad catalogue leaves no run to refuse later
    ctx.write_json(
        SCORING,
        {
            "scoring": config.scoring.model_dump(mode="json"),
            "kb": str(Path(config.kb).resolve()) if config.kb else None,
        },
    )
    scoring = SessionScoring.build(config.scoring, config.judge, kb, ctx, config.seed)
    _simulate(config, ctx, scoring)
    done_calling()  # a planning run ends here: the analysis calls no model
    _refuse_if_nothing_ran(sessions(ctx))
    out = Output(
        signature=scoring.signature(
            models=_models_signature(config),
            simulator=config.simulator.model_dump(mode="json", exclude={"drift"})
            | {"drift": config.simulator.drift.signature() if config.simulator.drift else "off"},
            sessions=f"{config.sessions}x{config.turns}"
            + (f"x{config.repeats}" if config.repeats > 1 else ""),
            **({"answered_by": answered} if (answered := _answered_by(sessions(ctx))) else {}),
        )
    )
    out.add(
        analysis(
            sessions(ctx),
            scoring.rated,
            n_boot=config.n_boot,
            seed=config.seed,
            notes=scoring.notes,
        )
    )
    if config.known_groups:
        from crseval.adaptation.known_groups import known_groups_output, pair_table

        out.add(
            known_groups_output(
                pair_table(out.tables["shift_sessions"], config.turns, config.n_boot, config.seed),
                f"the same {config.sessions} simulated users as the models, {config.turns} turns. "
                + _users_evidence(config),
                "Known groups in this run: which metrics rank the CRS that follows the user first",
            )
        )
    return out


def _refuse_if_nothing_ran(results: Sequence[dict[str, Any]]) -> None:
    """Every session ended because its CRS failed: say why in one line (there is nothing to score)."""
    if results and all(r.get("errors") for r in results):
        first = results[0]["errors"][0]
        raise WorkFailed(
            f"every session failed ({len(results)} of {len(results)}); the first: {first}",
            fix="fix the CRS, then run the same command with --retry-failed (it runs the failed sessions "
            "again with the fixed CRS)",
        )


def _users_evidence(config: ShiftConfig) -> str:
    from crseval.adaptation.user_validity import simulator_evidence

    sim = config.simulator
    return simulator_evidence(sim.user, sim.phrases, rewritten=sim.drift is not None)


def _headline(out: Output, notes: Sequence[str] = ()) -> Output:
    """One row per model with the mean of every metric; the CIs ('mean [low, high]') and the ANOVA as details."""
    mm, anova = out.tables["model_metrics"], out.tables["anova"]
    order = list(dict.fromkeys(mm["metric"]))
    means = mm.pivot(index="system", columns="metric", values="mean")[order].reset_index()
    n = mm.groupby("system")["n"].max().rename("sessions").reset_index()
    out.title = "Per-model means (sessions that failed are excluded)"
    out.summary = n.merge(means, on="system")
    out.notes += notes
    out.details |= {
        "Per-model means with 95 % bootstrap CIs": wide_metrics(mm),
        "One-way ANOVA across models": anova[["metric", "F", "p"]].assign(
            note=anova["note"].astype("string").fillna("")
        ),
    }
    return out


def run(config: ShiftConfig, ctx: RunContext) -> Output:
    out = _headline(shift_output(config, ctx))
    kb = load_kb(config.kb)
    out.notes.append(catalogue_line(kb.info, len(kb), "the config's kb"))
    if config.known_groups:
        from crseval.adaptation.known_groups import verdict_line

        summ = out.tables["known_groups_summary"]
        out.notes.insert(0, verdict_line(summ))
        out.notes.insert(1, _users_evidence(config))
        out.details["Known groups in this run"] = summ.drop(columns=["label"]).round(3)
    failed = [r for r in ctx.stream(STREAM).read() if r.get("errors")]
    if failed:
        out.failures = (
            f"{counted(len(failed), 'session')} ended because the CRS failed (first: {failed[0]['key']}: "
            f"{failed[0]['errors'][0]}); they are recorded and left out of the statistics"
        )
    return out


class ScoreConfig(BaseModel):
    """Score existing sessions without generating anything."""

    model_config = ConfigDict(extra="forbid")
    logs: Path = Field(
        ...,
        description="Session logs: a JSON file or folder of them ({model_name, true_genre, "
        "conversation: [{speaker, text, constraints}]}), a JSONL of crseval session "
        "records, or a run directory.",
        json_schema_extra={"argument": True},
    )
    kb: str | None = Field(
        None,
        description="The movie catalogue the sessions were produced with: an OpenDialKG KB "
        "file, ReDial's movies, 'sample' for the bundled one, or 'redial=PATH,opendialkg=PATH' — each "
        "CRS grounded in the one its name ends with (CRSArena-Dial's kbrd_redial, unicrs_opendialkg). "
        "Required for imported logs (a crseval run directory brings its own).",
    )
    corpus: Literal["separate", "joined"] = Field(
        "separate",
        description="TF-IDF corpus: titles and plots as "
        "separate documents (the original study's) or one per movie.",
    )
    similarity: Literal["tfidf", "minilm"] = Field(
        "tfidf", description="Sentence similarity model."
    )
    topics: Literal["keyword", "lda", "llm"] = Field(
        "keyword", description="Topic extractor (llm uses the LLM options)."
    )
    definition: Literal["crseval", "thesis"] = Field(
        "crseval",
        description="TAS definition: crseval's, or the preference-shift study's exactly as its code computes "
        "it (needs --lda; TF-IDF on separate titles and plots; --topics is not used).",
    )
    lda: Path | None = Field(
        None,
        description="The study's gensim LDA folder (lda.model, lda.dict, …) for "
        "--definition thesis.",
    )
    reader: Literal["rules", "llm"] = Field(
        "rules",
        description="Who reads the user's wishes from the user's words for the follow.* measures: rules "
        "(the simulator's grammar, the catalogue's vocabulary) or llm (the LLM options; one call per "
        "user turn, grounded in the catalogue).",
    )
    judge: bool = Field(
        False,
        description="Also rate proactiveness, coherence and personalization with the LLM judge.",
    )
    calibrated: str | None = Field(
        None,
        description="With --judge, also the calibrated judge: 'default', 'redial' or 'crsarena' (the "
        "shipped ones) or a file from `crseval judge fit`; each of its aspects reported as "
        "'<aspect> (calibrated)', e.g. 'dialogue-overall (calibrated)'.",
    )
    llm: LLMConfig = LLMConfig()
    judge_scale: str = Field(
        "1,5", description="Scale of the judge scores that come with the logs ('low,high')."
    )
    out_of_scale: Literal["report", "drop", "refuse"] = Field(
        "report",
        description="Judge scores outside the scale: keep and list them (as the published analysis did), "
        "drop them, or refuse the logs.",
    )
    published: Path | None = Field(
        None,
        description="The study's per-model metrics to compare with (default: "
        "model_metrics.csv beside the logs or in their parent folder, "
        "when there is one).",
    )
    n_boot: int = Field(2000, ge=0, description="Bootstrap resamples for the per-model CIs.")
    seed: int = Field(0, description="Seed (LDA, bootstrap).")

    @field_validator("judge_scale")
    @classmethod
    def _scale(cls, v: str) -> str:
        try:
            lo, hi = (float(x) for x in v.split(","))
        except ValueError:
            raise ValueError("judge_scale must be 'low,high', e.g. 1,5") from None
        if lo >= hi:
            raise ValueError("judge_scale needs low < high")
        return v


def sessions(run: RunContext | Run) -> list[dict[str, Any]]:
    """The run's session records in (model, session) order — parallel sessions finish in any order, and a
    rerun must write the same tables."""
    return in_key_order(
        run.stream(STREAM).read() if isinstance(run, RunContext) else run.records(STREAM)
    )


def scoring_of(run: Path) -> dict[str, Any]:
    """How a shift run scored: {"scoring": …, "kb": path or None}, from its scoring.json."""
    import json

    p = run / SCORING
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CrsevalError(
            "not a shift run: no scoring.json",
            file=p,
            fix="pass the directory of a `crseval shift run` or `crseval shift score`",
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CrsevalError(
            "unreadable scoring.json", file=p, fix="rerun the command that wrote it"
        ) from None


def _catalogues(config: ScoreConfig) -> dict[str, str | None]:
    """The KB to score against, per catalogue name (``""``: one for every CRS; a path None: the bundled
    sample), refusing to guess for imported logs."""
    if config.kb:
        cats = catalogues(config.kb, "--kb")
        return {n: None if p == "sample" else str(Path(p).resolve()) for n, p in cats.items()}
    if config.logs.is_dir() and (config.logs / SCORING).is_file():
        kb = scoring_of(config.logs).get("kb")
        return kb if isinstance(kb, dict) else {"": kb}
    raise CrsevalError(
        "imported logs need the movie catalogue they were produced with",
        field="--kb",
        fix="pass --kb path/to/opendialkg_movie_data.json (or --kb sample for the bundled catalogue; "
        "redial=PATH,opendialkg=PATH grounds each CRS in the one its name ends with); "
        "scores against the wrong catalogue differ by up to .12",
    )


def _sections(config: ScoreConfig) -> tuple[ScoringSection, JudgeSection | None]:
    """The scoring and judging sections a ``shift score`` config asks for, as a shift run's config has them."""
    scoring = validate(
        ScoringSection,
        {
            "similarity": config.similarity,
            "topics": config.topics,
            "corpus": config.corpus,
            "definition": config.definition,
            "lda": str(config.lda.resolve()) if config.lda else None,
            "topics_llm": config.llm if config.topics == "llm" else None,
            "reader": config.reader,
            "reader_llm": config.llm if config.reader == "llm" else None,
        },
    )
    if config.calibrated and not config.judge:
        raise CrsevalError(
            "the calibrated judge asks its questions with the judge's LLM",
            field="--calibrated",
            fix="add --judge",
        )
    judge = (
        JudgeSection(judges=[JudgeSpec(name="judge", llm=config.llm)], calibrated=config.calibrated)
        if config.judge
        else None
    )
    return scoring, judge


def _check_lda(config: ScoreConfig) -> None:
    """The study's LDA model goes with the study's definition, both or neither."""
    if config.definition == "thesis" and config.lda is None:
        raise CrsevalError(
            "--definition thesis needs the study's LDA model",
            field="--lda",
            fix="pass --lda path/to/lda (the folder with lda.model and lda.dict)",
        )
    if config.definition != "thesis" and config.lda is not None:
        raise CrsevalError(
            "the study's LDA model is read only by --definition thesis (--topics lda fits crseval's "
            "own LDA on the catalogue)",
            field="--lda",
            fix="add --definition thesis, or leave --lda out",
        )


def score(config: ScoreConfig, ctx: RunContext) -> Output:
    """Score imported sessions into ``ctx``: TAS components, detection quality where the logs carry
    simulator truth, optional judge, statistics; what the study published beside the logs is checked."""
    from crseval.adaptation.published import published

    _check_lda(config)
    cats = _catalogues(config)
    logs, notes = import_logs(config.logs)
    groups: dict[str, list[dict]] = {name: [] for name in cats}
    for r in logs:
        groups[catalogue_of(str(r["model"]), cats, "--kb")].append(r)
    scoring, judge = _sections(config)
    one = list(cats) == [""]
    kbs = {name: load_kb(cats[name]) for name, part in groups.items() if part}  # before any write
    ctx.write_json(
        SCORING, {"scoring": scoring.model_dump(mode="json"), "kb": cats[""] if one else cats}
    )
    for n in notes:
        ctx.log("NOTE " + n)
    scored = {
        name: SessionScoring.build(scoring, judge, kb, ctx, config.seed) for name, kb in kbs.items()
    }
    records = [r for name, s in scored.items() for r in _score_all(groups[name], s, ctx.progress)]
    extra = [f"Import repairs: {len(notes)} (see run.log)"] if notes else []
    first = next(iter(scored.values()))
    out = Output(signature=first.signature(source="imported logs"))
    if not one:  # each CRS's catalogue, and the TAS models fitted on it
        out.signature["data"] = ",".join(f"{n}:{s.kb.info.signature()}" for n, s in scored.items())
        tas = ",".join(f"{n}:{s.scorer.signature()}" for n, s in scored.items())
        out.signature["metric"]["tas"] = tas
    out.add(
        analysis(
            records,
            first.rated,
            n_boot=config.n_boot,
            seed=config.seed,
            notes=extra + first.notes,
        )
    )
    part, details, checks = published(config, logs, out.tables["model_metrics"])
    out.add(part)
    repairs = f"{len(notes)} import repairs (joined/dropped utterances), listed in {ctx.log_name}"
    _headline(
        out,
        [
            f"catalogue{f' of *_{n}' if n else ''}: {s.kb.info.signature()} ({len(s.kb)} movies)"
            for n, s in scored.items()
        ]
        + checks
        + ([repairs] if notes else []),
    )
    out.details.update(details)
    return out


def _score_all(logs, scoring: SessionScoring, progress: Progress) -> list[dict]:
    """Sessions scored in batches of ``SCORE_BATCH`` (each distinct utterance of a batch is encoded and read
    once; the bar's ETA moves per batch), judged and recorded (a resumed run reads what is already scored)."""

    def scored(part: list, keep: Callable[[dict[str, Any]], None]) -> None:
        recs = [rec for _, rec in part]
        try:
            measured = zip(recs, scoring.scorer.score(recs), scoring.following.sessions(recs))
            for rec, tas, follow in measured:
                keep(scoring.finish(rec, tas=tas, followed=follow))
        finally:
            close_clients()

    return scoring.ctx.stream(STREAM).run_batches(
        [(r["key"], r) for r in logs],
        scored,
        size=SCORE_BATCH,
        progress=progress("scoring sessions", len(logs)),
    )


RUN = JobSpec(
    "shift.run",
    ShiftConfig,
    run,
    "runs/shift",
    "Simulate sessions for every model, score them (TAS + judge), write results.jsonl, model_metrics, "
    "anova, tukey, figures and the report.",
    "Preference-shift adaptation",
    uses_llm=lambda c: (
        any(m.kind == "llm" for m in c.models)
        or bool(c.simulator.drift)
        or c.scoring.topics == "llm"
        or (c.judge.enabled and bool(c.judge.aspects))
    ),
    can_fail=True,
    check=lambda c: [
        load_callable(m.target or "", m.folder) for m in c.models if m.kind == "callable"
    ],
)
SCORE = JobSpec(
    "shift.score",
    ScoreConfig,
    score,
    "runs/shift-score",
    "Score existing sessions without generating anything: TAS components, detection quality where the "
    "logs carry simulator truth, optional judge, statistics and report.",
    "Preference-shift adaptation (imported logs)",
    uses_llm=lambda c: c.judge or c.topics == "llm" or c.reader == "llm",
)
