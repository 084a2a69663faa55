"""What `crseval criterion` is asked: real users' dialogues, their catalogues and verdicts, the resampling."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from crseval.llm import LLMConfig


class CriterionConfig(BaseModel):
    """Real users' dialogues with real CRSs → the card's metrics against the users' own verdicts."""

    model_config = ConfigDict(extra="forbid")
    data: str = Field(
        ...,
        description="Real users' dialogues with a label per dialogue: a CRSArena-Dial folder or file "
        "(../shared/data/arena/crsarena_dial), or session logs whose dialogues carry one.",
        json_schema_extra={"argument": True},
    )
    catalog: str = Field(
        ...,
        description="Catalogue(s) to ground titles in: one (a file or folder, or 'sample'), or "
        "'redial=PATH,opendialkg=PATH' — each CRS grounded in the one its name ends with.",
    )
    label: str = Field(
        "satisfied",
        description="The dialogue label the users gave (CRSArena-Dial: satisfied).",
        json_schema_extra={"signed": True},
    )
    votes: str | None = Field(
        None,
        description="Votes CSV(s), comma-separated (default: the votes*.csv beside a CRSArena-Dial file).",
    )
    elo: str | None = Field(
        None,
        description="The systems' published ranking (crowd,system,elo; default: published_elo.csv "
        "beside the data; without one, the systems' mean label).",
    )
    judge: bool = Field(False, description="Also the LLM judge's aspects (one call per dialogue).")
    llm: LLMConfig = LLMConfig()
    n_boot: int = Field(
        2000,
        ge=100,
        description="Bootstrap resamples of each CI.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(0, description="Seed of the resamples.", json_schema_extra={"signed": True})
