"""What one simulated session needs: the CRS models under evaluation, the simulator's settings, the KB,
turns and seed. The preference-shift job's config extends this with scoring, judge and executor."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
    target: str | None = Field(
        None,
        description="kind 'callable': 'module:function' (a module beside the config file is found)",
    )
    url: str | None = Field(None, description="kind 'http': the endpoint")
    folder: str | None = Field(
        None,
        description="where 'target' is imported from first (default: the config's folder)",
        json_schema_extra={"fingerprint": False},  # the run depends on the module, not the folder
    )

    def data_files(self) -> dict[str, Path]:
        """What the run loads beside the config's fields: a callable's module file (found, not imported
        — its package's ``__init__`` aside), so that editing it is seen on resume and nothing else in
        its folder is."""
        if self.kind != "callable" or not self.target:
            return {}
        module = self.target.partition(":")[0]
        added = self.folder is not None and self.folder not in sys.path
        if added:
            sys.path.insert(0, self.folder)
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # reported, with its fix, when the run imports it
            spec = None
        finally:
            if added:
                sys.path.remove(self.folder)
        origin = spec.origin if spec is not None else None
        return {"target": Path(origin)} if origin and Path(origin).is_file() else {}

    @model_validator(mode="after")
    def _needs(self) -> "ModelConfig":
        if self.kind == "callable" and not self.target:
            raise ValueError("kind 'callable' needs target = 'module:function'")
        if self.kind == "http" and not (self.url or "").startswith(("http://", "https://")):
            raise ValueError("kind 'http' needs url = 'http://…'")
        return self


class SimulatorSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
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
