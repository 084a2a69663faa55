"""What ``crseval judge fit`` is asked: the labelled training sets and the sets it is tested on, the
questions, features and turn model of the judge, the cross-validation and the LLM."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from crseval.core.config import CommaList
from crseval.llm import LLMConfig


class JudgeFitConfig(BaseModel):
    """Fit a calibrated judge on human labels."""

    model_config = ConfigDict(extra="forbid")
    data: CommaList = Field(
        ...,
        description="Labelled sets to fit on (any layout `judge meta-eval` reads).",
        json_schema_extra={"argument": True},
    )
    level: Literal["dialogue", "turn"] = Field(
        "dialogue",
        description="Dialogue- or turn-level labels.",
        json_schema_extra={"signed": True},
    )
    aspects: CommaList | None = Field(
        None, description="Aspects to learn, '_' or '-' alike (default: every labelled aspect)."
    )
    questions: CommaList = Field(
        ["dialogue-overall"],
        description="Rubric questions whose LLM digit probabilities "
        "are features; 'none' = rules only (no LLM).",
    )
    turn_model: bool = Field(
        False,
        description="Also learn a turn model from the sets' per-turn labels (CRSArena-Eval's "
        "turn_level_aggregated: relevance, interestingness) and use its predictions, aggregated per "
        "dialogue, as features (no LLM). Dialogue level only.",
        json_schema_extra={"signed": True},
    )
    rules: bool = Field(
        True,
        description="Use the rule-read transcript features (--no-rules: only the LLM questions and "
        "the turn model — on CRSArena-Eval they help under user-grouped CV and hurt on systems held out).",
        json_schema_extra={"signed": True},
    )
    llm_states: bool = Field(
        False,
        description="The turn model also reads the judge LLM's last-layer hidden states over each reply "
        "and the user's next message, taken while it prefills the first question's prompt (no extra call; the embedded llamacpp "
        "backend only). Needs --turn-model and a dialogue-level question.",
        json_schema_extra={"signed": True},
    )
    compact: bool = Field(
        False,
        description="Read each LLM question by its expected score alone (not its five digit "
        "probabilities) and the turn model by its mean turn alone (not the worst and the last): fewer "
        "weights, which carry over better to a CRS the judge has never met (leave-one-system-out on "
        "CRSArena-Eval) and lose nothing under user-grouped CV. The rule features are kept whole.",
        json_schema_extra={"signed": True},
    )
    encoder: Literal["mpnet", "minilm", "hashing"] = Field(
        "mpnet",
        description="The turn model's sentence encoder: all-mpnet-base-v2 (+.02–.04 Pearson on every "
        "CRSArena-Eval aspect under grouped CV), the 5× faster all-MiniLM-L6-v2, or hashed word "
        "n-grams (no model at all: a quick look, and the tests).",
        json_schema_extra={"signed": True},
    )
    reference: Path | None = Field(
        None,
        description="Another judge's published predictions in the FACE layout for the training items "
        "(e.g. CRSArena-Eval's face_run_train.json): a row per aspect beside the out-of-fold designs, "
        "paired tests against it, the system level.",
    )
    folds: int = Field(
        5,
        ge=2,
        description="Outer folds of the nested cross-validation when it keeps users apart (with "
        "--cv-groups system: one per system).",
        json_schema_extra={"signed": True},
    )
    cv_groups: Literal["user", "system"] = Field(
        "user",
        description="What the cross-validation keeps on one side of a split: the user (a battle's "
        "two dialogues; the dialogue where ids name no user; --folds outer folds) or the system "
        "(leave-one-system-out: fitted on all CRSs but one, scored on that one, each in turn — how "
        "the judge does on a CRS it has never seen; judge_fit_held_out per CRS and pooled). Beside a set "
        "whose ids name their systems, a set whose ids name none is one system of its own.",
        json_schema_extra={"signed": True},
    )
    test: CommaList | None = Field(
        None,
        description="Comma-separated labelled sets to test the fitted judge on "
        "(cross-dataset transfer).",
    )
    limit: int | None = Field(
        None,
        ge=10,
        description="Use a seeded random subset of this many items per set.",
        json_schema_extra={"signed": True},
    )
    name: str | None = Field(
        None, description="The judge's name (default: the training sets' names)."
    )
    llm: LLMConfig = LLMConfig()
    n_boot: int = Field(
        1000,
        ge=0,
        description="Bootstrap resamples for the CIs and paired tests.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed for the subsets, folds and bootstrap.",
        json_schema_extra={"signed": True},
    )
