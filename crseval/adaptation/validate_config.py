"""What ``crseval shift validate`` is asked: the run, the real users it is compared with, the counterfactual
pillar's follower and ignorer, the sample sizes and the seed — read by the job and by the four pillars."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from crseval.core.config import split_commas


class ValidateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: Path | None = Field(
        None,
        description="A `shift run` or `shift score` run directory (a card's validity part is handed its "
        "shift part instead).",
        json_schema_extra={"argument": True},
    )
    human: str = Field(
        "sample",
        description="Real users' dialogues, the reference: 'sample' (the bundled dialogues, a small "
        "reference), a CRSArena-Dial folder (real users of real CRSs, with their own labels and votes), "
        "ReDial, INSPIRED or your own logs (any layout `crseval dialogues` reads).",
    )
    also: Annotated[list[str], BeforeValidator(split_commas)] = Field(
        [],
        description="Other human sources compared with the reference the same way (the human-vs-human "
        "rows of the discriminator), e.g. ../shared/data/redial; a source that is part of the reference "
        "(one crowd's file of a CRSArena-Dial folder) is compared with the rest of it.",
    )
    follower: str = Field(
        "template", description="The run's CRS that follows the user (counterfactual pillar)."
    )
    ignorer: str = Field(
        "stubborn", description="The run's CRS that ignores the user (counterfactual pillar)."
    )
    n_boot: int = Field(2000, ge=100, description="Resamples of every CI.")
    max_turns: int = Field(
        2000, ge=10, description="User turns sampled (seeded) per source for human-likeness."
    )
    seed: int = Field(0, description="Seed of the samples.", json_schema_extra={"signed": True})
