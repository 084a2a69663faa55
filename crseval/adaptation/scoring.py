"""How a preference-shift session is scored, built once from the config: TAS (crseval's or the study's
definition, with its similarity and topic models), verified following against the catalogue, the judge
panel with its aspects and the calibrated judge — one :class:`SessionScoring` that the simulated run
(``shift run``) and the imported one (``shift score``) both hand each session to, and that writes the
scoring part of the run's signature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from crseval.adaptation.config import JudgeSection, ScoringSection
from crseval.adaptation.following import Following
from crseval.adaptation.score import Scorer
from crseval.adaptation.thesis_tas import ThesisScorer
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance, truth_of
from crseval.data.kb import MovieKB
from crseval.judge.judging import Judge, judge_items
from crseval.judge.rubric import rubric_for
from crseval.runs.context import RunContext
from crseval.simulation.session import client_for
from crseval.text.similarity import TfidfSimilarity, make_similarity
from crseval.text.thesis_lda import ThesisLDA
from crseval.text.topics import make_topics

STREAM = "results"
JUDGE_STREAM = (
    "shift_judgments"  # its own stream, so a shift job can share a run directory (the demo)
)


def build_scorer(
    cfg: ScoringSection, kb: MovieKB, ctx: RunContext, seed: int
) -> tuple[Scorer | ThesisScorer, list[str]]:
    """The configured TAS definition with its similarity and topic models; every fallback is logged as a
    WARNING (shown in the report) and returned, so it also goes into the signature."""
    if cfg.definition == "thesis":
        return ThesisScorer(
            TfidfSimilarity(kb.texts("separate"), label="separate"), ThesisLDA(cfg.lda)
        ), []
    warn = lambda msg: ctx.log("WARNING " + msg)  # noqa: E731
    sim, n1 = make_similarity(cfg.similarity, kb.texts(cfg.corpus), warn, label=cfg.corpus)
    client = (
        client_for(cfg.topics_llm, ctx.llm_cache, "topic extractor") if cfg.topics_llm else None
    )
    topics, n2 = make_topics(
        cfg.topics, kb, client=client, n_topics=cfg.lda_topics, seed=seed, warn=warn
    )
    return Scorer(sim, topics, cfg.tas_params()), [n for n in (n1, n2) if n]


def preference_summary(record: dict[str, Any]) -> str:
    """What the user asked for, in order (from the simulator's truth; for imported logs, the target genre
    and the CRS's last constraints)."""
    turns = record["turns"]
    if turns and truth_of(turns[0]):
        parts = [f"turn 0: wants {record.get('start_genre')}"]
        for t in turns[1:]:
            tr = truth_of(t)
            if tr.get("shift"):
                to = " and ".join(tr["to"]) if isinstance(tr["to"], list) else tr["to"]
                parts.append(
                    f"turn {t['turn']}: {tr['kind']} → {to}"
                    + (" (takes back an earlier wish)" if tr.get("contradiction") else "")
                )
        return "; ".join(parts)
    last = next((t.get("constraints") for t in reversed(turns) if t.get("constraints")), None)
    bits = [f"target genre: {record['true_genre']}"] if record.get("true_genre") else []
    if last:
        bits.append(f"final constraints: {last}")
    return "; ".join(bits)


def as_dialogue(record: dict[str, Any]) -> Dialogue:
    utts = [
        u
        for t in record["turns"]
        for u in (Utterance(Role.USER, t["user"]), Utterance(Role.SYSTEM, t["system"]))
    ]
    return Dialogue.from_utterances(
        record["key"], utts, {"preference_summary": preference_summary(record)}
    )


def judge_panel(section: JudgeSection, ctx: RunContext) -> list[Judge]:
    if not section.enabled:
        return []
    return [
        Judge(j.name, client_for(j.llm, ctx.llm_cache, "judge"), j.samples, j.llm.temperature)
        for j in section.judges
    ]


def _calibrated(section: JudgeSection, judges: Sequence[Judge]):
    """The calibrated judge the config names (None when it names none or nothing is judged)."""
    if section.calibrated is None or not judges:
        return None
    from crseval.judge.calibrated import CalibratedJudge

    judge = CalibratedJudge.load(section.calibrated)
    if judge.level != "dialogue":
        raise CrsevalError(
            f"the calibrated judge was fitted on {judge.level}-level labels",
            field="judge.calibrated",
            fix="a session is judged as one dialogue: fit a dialogue-level judge",
        )
    return judge


@dataclass
class SessionScoring:
    """Everything that scores one session, and where it writes."""

    ctx: RunContext
    kb: MovieKB
    seed: int
    scorer: Scorer | ThesisScorer
    fallbacks: list[str]
    judges: list[Judge]
    aspects: list[str]
    calibrated: Any  # a CalibratedJudge, or None
    following: Following

    @classmethod
    def build(
        cls,
        scoring: ScoringSection,
        judge: JudgeSection | None,
        kb: MovieKB,
        ctx: RunContext,
        seed: int,
    ) -> "SessionScoring":
        scorer, fallbacks = build_scorer(scoring, kb, ctx, seed)
        judges = judge_panel(judge, ctx) if judge is not None else []
        reader = None
        if scoring.reader == "llm":
            from crseval.adaptation.wish_reader import LLMWishReader
            from crseval.llm import LLMConfig

            llm = scoring.reader_llm or LLMConfig()
            reader = LLMWishReader(client_for(llm, ctx.llm_cache, "wish reader"), kb)
        return cls(
            ctx,
            kb,
            seed,
            scorer,
            fallbacks,
            judges,
            list(judge.aspects) if judges else [],
            _calibrated(judge, judges) if judge is not None else None,
            Following(kb, reader),
        )

    @property
    def rated(self) -> list[str]:
        """The judged columns: the panel's aspects, then the calibrated judge's."""
        extra = self.calibrated.aspects if self.calibrated else []
        return [*self.aspects, *(f"{a} (calibrated)" for a in extra)]

    @property
    def notes(self) -> list[str]:
        return [f"Fallbacks: {'; '.join(self.fallbacks)}"] if self.fallbacks else []

    def finish(
        self,
        record: dict[str, Any],
        tas: dict[str, Any] | None = None,
        followed: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        """Score one session (TAS and verified following, unless already measured in a batch, + judge panel
        + calibrated judge): the record its stream keeps."""
        record = {**record, "tas": tas if tas is not None else self.scorer.score([record])[0]}
        record["following"] = (
            followed if followed is not None else self.following.session(record["turns"])
        )
        if self.judges and self.aspects and not record.get("errors") and record["turns"]:
            self._judge(record)
        return record

    def _judge(self, record: dict[str, Any]) -> None:
        recs = judge_items(
            [(record["key"], as_dialogue(record), None)],
            self.aspects,
            self.judges,
            self.ctx.stream(JUDGE_STREAM),
            seed=self.seed,
        )
        by: dict[str, dict[str, list[float]]] = {}
        for r in recs:
            if r["score"] is not None:
                by.setdefault(r["judge"], {}).setdefault(r["aspect"], []).append(r["score"])
        per_judge = {j: {a: sum(v) / len(v) for a, v in d.items()} for j, d in by.items()}
        record["judge_by"] = per_judge
        record["judge"] = {
            a: sum(d[a] for d in per_judge.values() if a in d) / n
            for a in self.aspects
            if (n := sum(a in d for d in per_judge.values()))
        }
        record["judge_methods"] = sorted({r["method"] for r in recs})
        record["judge_failures"] = sum(r["score"] is None for r in recs)
        if self.calibrated is not None:
            scores = self.calibrated.rate(
                record["key"],
                as_dialogue(record),
                self.judges[0],
                self.ctx.stream(JUDGE_STREAM),
                seed=self.seed,
            )
            record["judge"].update(scores)
            record["judge_failures"] += not scores

    def signature(self, **extra: Any) -> dict[str, Any]:
        """The run's signature fields: the catalogue, TAS, the judge's prompts and LLMs, fallbacks, the
        calibrated judge, and what the caller adds (models, simulator, sessions)."""
        return {
            "data": self.kb.info.signature(),
            "metric": {
                "tas": self.scorer.signature(),
                "judge": ",".join(f"{a}:{rubric_for(a).prompt_hash()}" for a in self.aspects)
                or "off",
                "rating": "expected|sampled",
                "wishes": self.following.reader.signature
                if self.following.reader
                else "rules+like+recent",
            },
            "llm": {
                j.name: {**j.client.identity(), "samples": j.samples, "T": j.temperature}
                for j in self.judges
            },
            "fallbacks": self.fallbacks or "none",
            "model": {"calibrated": self.calibrated.name, "trained_on": self.calibrated.trained_on}
            if self.calibrated
            else None,
            **extra,
        }
