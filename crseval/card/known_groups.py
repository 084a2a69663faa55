"""`crseval shift known-groups`: does each adaptation metric rank the CRS that follows the user above CRSs
known not to? The reference CRSs of :mod:`crseval.simulation.references` meet the same simulated users at
several dialogue lengths (one ``shift.run`` part per length); for every metric with a direction and every
(follower, other) pair, the AUC — the chance that a session of the follower scores better, in the metric's
own direction — with a 95 % CI from resampling sessions, and whether the expected ordering held.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from crseval.adaptation.known_groups import (
    FOLLOWER,
    known_groups_output,
    pair_table,
    reference_models,
)
from crseval.core.config import split_commas
from crseval.core.job import JobSpec, Part
from crseval.core.output import Output
from crseval.llm import LLMConfig

ASPECTS = ("proactiveness", "coherence", "personalization")

if TYPE_CHECKING:
    from crseval.runs.context import RunContext


class KnownGroupsConfig(BaseModel):
    """The reference CRSs on the same simulated users at several lengths."""

    model_config = ConfigDict(extra="forbid")
    sessions: int = Field(100, ge=5, le=100_000, description="Simulated users per CRS and length.")
    lengths: Annotated[list[int], BeforeValidator(split_commas)] = Field(
        [8, 12, 20], min_length=1, description="Dialogue lengths (turns), comma-separated."
    )
    kb: str | None = Field(
        None,
        description="Movie catalogue: ReDial's movies_id2info.json, an OpenDialKG KB or MovieLens' "
        "movies.csv (empty: the bundled sample catalogue).",
    )
    judge: bool = Field(
        False,
        description="Check the LLM judge's aspects too (proactiveness, coherence, personalization): one "
        "more part, smaller (--judge-sessions × --judge-turns), whose sessions the judge rates.",
    )
    judge_sessions: int = Field(
        6, ge=5, le=100_000, description="Simulated users per CRS that the judge rates."
    )
    judge_turns: int = Field(6, ge=2, le=200, description="Turns of those sessions.")
    llm: LLMConfig = LLMConfig()
    n_boot: int = Field(
        1000,
        ge=100,
        description="Bootstrap resamples of each AUC's CI.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed of the simulated users, the CRSs and the resamples.",
        json_schema_extra={"signed": True},
    )


def _part(config: KnownGroupsConfig, name: str, sessions: int, turns: int, judge: dict) -> Part:
    return Part(
        name,
        "shift.run",
        {
            "seed": config.seed,
            "sessions": sessions,
            "turns": turns,
            "kb": config.kb,
            "workers": 1 if judge.get("enabled", True) else 2,
            "n_boot": 200,
            "models": reference_models([]),
            "judge": judge,
        },
    )


def parts(config: KnownGroupsConfig) -> list[Part]:
    out = [
        _part(config, f"turns-{n}", config.sessions, n, {"enabled": False})
        for n in dict.fromkeys(config.lengths)
    ]
    if config.judge:
        judge = {
            "aspects": list(ASPECTS),
            "judges": [{"name": "judge", "llm": config.llm.model_dump()}],
        }
        out.append(_part(config, "judged", config.judge_sessions, config.judge_turns, judge))
    return out


def run(config: KnownGroupsConfig, ctx: RunContext) -> Output:
    from crseval.adaptation.user_validity import simulator_evidence
    from crseval.card.manifest import Parts
    from crseval.simulation.config import SimulatorSection

    tables, done = [], Parts(list(ctx.manifest))
    for i, (part, result) in enumerate(done.run(ctx)):
        sessions = result.tables["shift_sessions"]
        pairs = pair_table(sessions, part.config["turns"], config.n_boot, config.seed + i)
        if part.name == "judged":  # its other metrics are checked at full size already
            pairs = pairs[pairs["metric"].isin([f"shift.{a}" for a in ASPECTS])]
        tables.append(pairs)
    out = Output(
        "Known groups: per metric, how often the follower is ranked above CRSs that do not follow",
        signature={
            "data": f"sessions:{config.kb or 'sample'}",
            "metric": {
                "known_groups": f"auc(follower={FOLLOWER},ties=half,ci=percentile-bootstrap)"
            },
            "parts": done.hashes(),
        },
        notes=[simulator_evidence(SimulatorSection().user)],
    )
    where = (
        f"the same {config.sessions} simulated users at "
        f"{', '.join(map(str, dict.fromkeys(config.lengths)))} turns"
        + (
            f" (the judge's aspects: {config.judge_sessions} users × {config.judge_turns} turns)"
            if config.judge
            else ""
        )
        + ". "
        + simulator_evidence(SimulatorSection().user)
    )
    out.add(
        known_groups_output(
            pd.concat(tables, ignore_index=True),
            where,
            "Known groups: which metrics separate a CRS that follows the user",
        )
    )
    summ = out.tables["known_groups_summary"]
    out.summary = summ.drop(columns=["label"]).round(3)
    return out


JOB = JobSpec(
    "shift.known-groups",
    KnownGroupsConfig,
    run,
    "runs/known-groups",
    "Check every adaptation metric on CRSs of known behaviour (follows the user, ignores the user, "
    "echoes, lags a turn, forgets, keeps the first wish, hallucinates) at several dialogue lengths; --judge: the LLM "
    "judge's aspects too.",
    "crseval shift known-groups",
    uses_llm=lambda c: c.judge,
    parts=parts,
)
