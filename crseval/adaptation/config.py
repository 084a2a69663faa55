"""``crseval shift run CONFIG.toml``: models, sessions × turns, seeds, simulator (the session part, from
:mod:`crseval.simulation.config`), scoring, judge panel, executor."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from crseval.adaptation.tas import TASParams
from crseval.judge.config import JudgeSpec
from crseval.llm import LLMConfig
from crseval.simulation.config import ModelConfig, SessionSpec, SimulatorSection

__all__ = ["JudgeSection", "ModelConfig", "ScoringSection", "ShiftConfig", "SimulatorSection"]


class ScoringSection(TASParams):
    """How sessions are scored: the TAS definition, the text models, plus crseval TAS's own parameters
    (inherited, declared once)."""

    model_config = ConfigDict(extra="forbid", frozen=False)
    definition: Literal["crseval", "thesis"] = Field(
        "crseval",
        description="crseval: crseval's TAS (keyword topics, turn-level shifts, windowed recovery); thesis: "
        "the preference-shift study's TAS exactly as its code computes it (LDA topics, segments, "
        "recovery to the end of the dialogue), which needs lda",
    )
    lda: str | None = Field(
        None,
        description="The study's gensim LDA folder (lda.model, lda.dict, …) for "
        "definition = 'thesis'",
    )
    similarity: Literal["tfidf", "minilm"] = "tfidf"
    corpus: Literal["separate", "joined"] = Field(
        "separate",
        description="TF-IDF fitted on titles and plots as separate documents (the original study's "
        "corpus, reproduces its published numbers) or one 'title. plot' document per movie",
    )
    topics: Literal["keyword", "lda", "llm"] = "keyword"
    topics_llm: LLMConfig | None = Field(None, description="the model for topics = 'llm'")
    reader: Literal["rules", "llm"] = Field(
        "rules",
        description="How the user's wishes are read from the user's words where no simulator truth was "
        "logged (imported logs): rules (the simulator's grammar and the catalogue's vocabulary) or llm "
        "(reader_llm answers after every user turn, grounded in the catalogue)",
    )
    reader_llm: LLMConfig | None = Field(
        None, description="the model for reader = 'llm' (default: the embedded one)"
    )
    lda_topics: int = Field(20, ge=2, le=200)

    @model_validator(mode="after")
    def _thesis_needs(self) -> "ScoringSection":
        if self.definition == "thesis":
            if not self.lda:
                raise ValueError(
                    "definition 'thesis' needs lda: the study's LDA folder (lda.model, lda.dict)"
                )
            if self.similarity != "tfidf" or self.corpus != "separate":
                raise ValueError(
                    "definition 'thesis' uses the study's similarity: TF-IDF fitted on titles and plots "
                    "as separate documents (similarity = 'tfidf', corpus = 'separate')"
                )
        elif self.lda:
            raise ValueError(
                "lda (the study's LDA model) is read only by definition = 'thesis'; topics = 'lda' "
                "fits crseval's own LDA on the catalogue"
            )
        return self

    def tas_params(self) -> TASParams:
        return TASParams(**self.model_dump(include=set(TASParams.model_fields)))


class JudgeSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    aspects: list[Literal["proactiveness", "coherence", "personalization"]] = [
        "proactiveness",
        "coherence",
        "personalization",
    ]
    judges: list[JudgeSpec] = Field(default_factory=lambda: [JudgeSpec(name="judge")])
    calibrated: str | None = Field(
        None,
        description="'default', 'redial' or 'crsarena' (the shipped calibrated judges) or a judge from "
        "`crseval judge fit`: every session also gets its aspects, e.g. "
        "'dialogue-overall (calibrated)', asked with the first judge's "
        "model (which must be the one it was fitted on).",
    )


class ShiftConfig(SessionSpec):
    model_config = ConfigDict(extra="forbid")
    sessions: int = Field(3, ge=1, le=1_000_000)
    executor: Literal["local", "ray"] = "local"
    workers: int = Field(4, ge=1, le=512, description="sessions in flight at once")
    ray_address: str | None = Field(
        None, description="Ray cluster address; empty: a local Ray instance"
    )
    n_boot: int = Field(
        2000, ge=0, le=100_000, description="bootstrap resamples for the per-model CIs"
    )
    scoring: ScoringSection = ScoringSection()
    judge: JudgeSection = JudgeSection()
    retry_failed: bool = Field(
        False,
        description="Run again the sessions this run directory recorded as failed (after fixing the "
        "CRS); without it a resumed run keeps them as they failed.",
        json_schema_extra={"invocation": True},
    )
    known_groups: bool = Field(
        False,
        description="Add the reference CRSs of known behaviour (template, stubborn, echo, laggard, "
        "forgetter, anchored, hallucinator) that the models lack, and report beside every metric — the judge's "
        "aspects included — whether it ranks the one that follows the user above the others, in this run",
    )

    @model_validator(mode="after")
    def _with_references(self) -> "ShiftConfig":
        if self.known_groups:
            from crseval.adaptation.known_groups import reference_models

            extra = reference_models([m.name for m in self.models])
            self.models = [*self.models, *map(ModelConfig.model_validate, extra)]
        return self

    def resolved(self, base: Path) -> "ShiftConfig":
        """Relative KB paths are relative to the config file; plug-in modules are found beside it."""
        update: dict = {}
        if self.kb and not Path(self.kb).is_absolute():
            update["kb"] = str((base / self.kb).resolve())
        if self.scoring.lda and not Path(self.scoring.lda).is_absolute():
            update["scoring"] = self.scoring.model_copy(
                update={"lda": str((base / self.scoring.lda).resolve())}
            )
        models = [
            m.model_copy(update={"folder": str(base.resolve())})
            if m.kind == "callable" and not m.folder
            else m
            for m in self.models
        ]
        return self.model_copy(update={**update, "models": models})
