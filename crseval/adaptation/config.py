"""``crseval shift run CONFIG.toml``: models, sessions × turns, seeds, simulator, scoring, judge panel."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crseval.judge.panel import JudgeSpec
from crseval.llm import LLMConfig

NAME = r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$"


class ModelConfig(BaseModel):
    """One CRS under evaluation. ``llm``: KB retrieval + an LLM writing the reply (``prompt`` is a name
    from ``crseval.simulation.crs.PROMPTS`` or a system prompt of your own); ``template``: the same
    retrieval with a fixed reply (no LLM); ``callable``: ``target = "module:function"`` taking the
    history; ``http``: ``url`` of an endpoint taking ``{"history": [...]}``."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., pattern=NAME)
    kind: Literal["llm", "template", "callable", "http"] = "llm"
    llm: LLMConfig = LLMConfig()
    prompt: str = "default"
    shortlist: int = Field(5, ge=1, le=50)
    target: str | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _needs(self) -> "ModelConfig":
        if self.kind == "callable" and not self.target:
            raise ValueError("kind 'callable' needs target = 'module:function'")
        if self.kind == "http" and not (self.url or "").startswith(("http://", "https://")):
            raise ValueError("kind 'http' needs url = 'http://…'")
        return self


class SimulatorSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    error_rate: float = Field(0.1, ge=0, le=1, description="probability of starting from a wrong genre")
    contradiction_rate: float = Field(0.2, ge=0, le=1)
    blend_rate: float = Field(0.1, ge=0, le=1)
    shift_every: tuple[int, int] = (3, 5)
    drift: LLMConfig | None = Field(None, description="an LLM that rewrites the simulator's utterances")

    @field_validator("shift_every")
    @classmethod
    def _order(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1]:
            raise ValueError("shift_every must be [lo, hi] with 1 <= lo <= hi")
        return v


class ScoringSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    similarity: Literal["tfidf", "minilm"] = "tfidf"
    topics: Literal["keyword", "lda", "llm"] = "keyword"
    topics_llm: LLMConfig | None = Field(None, description="the model for topics = 'llm'")
    lda_topics: int = Field(20, ge=2, le=200)
    sim_topic_shift: float = Field(0.55, ge=0, le=1)
    topic_jaccard_shift: float = Field(0.35, ge=0, le=1)
    alignment_threshold: float = Field(0.65, ge=0, le=1)
    delay_scale: float = Field(5.0, gt=0)
    weights: dict[Literal["recovery_rate", "rd_norm", "ti_norm", "cross_coherence", "context_retention"],
                  float] = Field(default_factory=lambda: dict.fromkeys(
                      ("recovery_rate", "rd_norm", "ti_norm", "cross_coherence", "context_retention"), 1.0))


class JudgeSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    aspects: list[Literal["proactiveness", "coherence", "personalization"]] = \
        ["proactiveness", "coherence", "personalization"]
    judges: list[JudgeSpec] = Field(default_factory=lambda: [JudgeSpec(name="judge")])


class ShiftConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = 0
    sessions: int = Field(3, ge=1, le=1_000_000)
    turns: int = Field(20, ge=2, le=200)
    kb: str | None = Field(None, description="OpenDialKG movie KB file; empty: the bundled sample catalogue")
    executor: Literal["local", "ray"] = "local"
    workers: int = Field(4, ge=1, le=512, description="sessions in flight at once")
    ray_address: str | None = Field(None, description="Ray cluster address; empty: a local Ray instance")
    models: list[ModelConfig] = Field(..., min_length=1)
    simulator: SimulatorSection = SimulatorSection()
    scoring: ScoringSection = ScoringSection()
    judge: JudgeSection = JudgeSection()

    @field_validator("models")
    @classmethod
    def _unique(cls, v: list[ModelConfig]) -> list[ModelConfig]:
        names = [m.name for m in v]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"model names must be unique, repeated: {sorted(dup)}")
        return v

    def resolved(self, base: Path) -> "ShiftConfig":
        """Relative KB paths are relative to the config file."""
        if self.kb and not Path(self.kb).is_absolute():
            return self.model_copy(update={"kb": str((base / self.kb).resolve())})
        return self
