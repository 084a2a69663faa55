"""Who judges: one judge (a model and how many samples it draws per item) and a panel of them (TOML)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from crseval.llm import LLMConfig


class JudgeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    llm: LLMConfig = LLMConfig()
    samples: int = Field(
        1, ge=1, le=50, description="repeated samples per item (use temperature > 0 for > 1)"
    )
    question: str | None = Field(
        None,
        description="this member's own question for every aspect (a panel that "
        "mixes prompts, not only models)",
    )


class PanelConfig(BaseModel):
    """``--panel panel.toml``: ``[[judges]]`` entries, each with a name, samples and a ``[judges.llm]`` table."""

    model_config = ConfigDict(extra="forbid")
    judges: list[JudgeSpec] = Field(..., min_length=1)
