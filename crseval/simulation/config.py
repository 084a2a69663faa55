"""What one simulated session needs: the CRS models under evaluation, the simulator's settings, the KB,
turns and seed. The preference-shift job's config extends this with scoring, judge and executor."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crseval.llm import LLMConfig
from crseval.simulation.references import NAMES as REFERENCES
from crseval.simulation.targets import Target, target_input

NAME = r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$"


class ModelConfig(BaseModel):
    """One CRS under evaluation. ``llm``: KB retrieval + an LLM writing the reply (``prompt`` is a name
    from ``crseval.simulation.crs.PROMPTS`` or a system prompt of your own); ``template``: the same
    retrieval with a fixed reply (no LLM); ``callable``: ``target = "module:function"`` taking the
    history; ``http``: ``url`` of an endpoint taking ``{"history": [...]}``; ``reference``: a CRS of known
    behaviour (``reference = "stubborn"`` …, :mod:`crseval.simulation.references`) on the session's
    catalogue."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., pattern=NAME)
    kind: Literal["llm", "template", "callable", "http", "reference"] = "llm"
    llm: LLMConfig = LLMConfig()
    prompt: str = "default"
    shortlist: int = Field(5, ge=1, le=50)
    target: Target = Field(
        None,
        description="kind 'callable': 'module:function' (a module beside the config file is found), "
        "or from Python the function itself",
    )
    url: str | None = Field(None, description="kind 'http': the endpoint")
    reference: Literal[REFERENCES] | None = Field(
        None, description="kind 'reference': which CRS of known behaviour"
    )
    folder: str | None = Field(
        None,
        description="where 'target' is imported from first (default: the config's folder)",
        json_schema_extra={"fingerprint": False},  # the run depends on the module, not the folder
    )

    def data_files(self) -> dict[str, Path | str]:
        """What the run loads beside the config's fields: a callable's module file or a given function's
        source (:func:`crseval.simulation.targets.target_input`) — not the folder it is found in."""
        found = target_input(self.target, self.folder) if self.kind == "callable" else None
        return {"target": found} if found is not None else {}

    @model_validator(mode="after")
    def _needs(self) -> "ModelConfig":
        if self.kind == "callable" and not self.target:
            raise ValueError("kind 'callable' needs target = 'module:function'")
        if self.kind == "http" and not (self.url or "").startswith(("http://", "https://")):
            raise ValueError("kind 'http' needs url = 'http://…'")
        if (self.kind == "reference") != (self.reference is not None):
            raise ValueError("kind 'reference' and reference = NAME go together")
        return self


class SimulatorSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: Literal["realistic", "scripted"] = Field(
        "realistic",
        description="'realistic': talks like real CRS users (greets, asks about films, rejects, complains, "
        "thanks, leaves satisfied or frustrated; crseval.simulation.persona); 'scripted': the fixed "
        "patterns of every earlier run, always the full length",
    )
    phrases: str = Field(
        "bundled",
        description="The realistic user's wording: 'bundled' (crseval's phrasebook) or real users' "
        "dialogues (a CRSArena-Dial folder, ReDial, INSPIRED, your logs) whose turns become its templates, "
        "titles, genres, people and years refilled from its own wishes",
    )
    error_rate: float = Field(
        0.1, ge=0, le=1, description="probability of starting from a wrong genre"
    )
    contradiction_rate: float = Field(0.2, ge=0, le=1)
    blend_rate: float = Field(0.1, ge=0, le=1)
    shift_every: tuple[int, int] = (3, 5)
    drift: LLMConfig | None = Field(
        None, description="an LLM that rewrites the simulator's utterances"
    )

    @field_validator("shift_every")
    @classmethod
    def _order(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1]:
            raise ValueError("shift_every must be [lo, hi] with 1 <= lo <= hi")
        return v


class SessionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = 0
    turns: int = Field(20, ge=2, le=200)
    kb: str | None = Field(
        None, description="OpenDialKG movie KB file; empty: the bundled sample catalogue"
    )
    models: list[ModelConfig] = Field(..., min_length=1)
    simulator: SimulatorSection = SimulatorSection()
    repeats: int = Field(
        1,
        ge=1,
        le=20,
        description="sessions per simulated user: the same user (seed) meets each "
        "CRS this many times, the CRS seeded anew each time (pass^k)",
    )

    @field_validator("models")
    @classmethod
    def _unique(cls, v: list[ModelConfig]) -> list[ModelConfig]:
        names = [m.name for m in v]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"model names must be unique, repeated: {sorted(dup)}")
        return v

    def session_part(self) -> dict:
        """The fields a session worker needs (plain JSON, for Ray)."""
        return self.model_dump(mode="json", include=set(SessionSpec.model_fields))
