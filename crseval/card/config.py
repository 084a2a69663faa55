"""The report card's configuration and manifest: :class:`CardConfig` (the CRS under test, the references
it is compared with, the sizes) and :func:`parts`, the (part, job, config) list the card runs — the
preference-shift sessions (``shift.run``), what the systems say inside them (``dialogues.metrics``) and
behavior alignment of each system's replies on strategy-labelled contexts (``behavior.run``).

LLM-bound work lives in parts of its own (``shift-llm``, ``dialogues-llm``: fewer sessions, the LLM
reference CRS and the judge), so ``--no-llm`` is the same card less those rows and columns.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from crseval.core.config import split_commas
from crseval.core.job import Part
from crseval.llm import LLMConfig
from crseval.simulation.references import BEHAVIOUR
from crseval.simulation.targets import Target, given, split_target, target_input

CARD_REFERENCES = ("template", "stubborn", "hallucinator", "llm")
REFERENCES = {  # what each reference does, in words (the reference CRSs' own, and the LLM CRS)
    **{n: BEHAVIOUR[n] for n in CARD_REFERENCES if n in BEHAVIOUR},
    "llm": "crseval's LLM CRS: the template's retrieval, the reply written by the LLM",
}
JUDGED = ("personalization",)
_NAME = re.compile(r"[A-Za-z0-9][\w.+-]{0,63}")


def target_name(target: str) -> str:
    """A CRS's name in tables from its target: the function's name, or its file's or module's where it is
    the protocol's ``respond``; ``http-crs`` for an endpoint."""
    if target.startswith(("http://", "https://")):
        return "http-crs"
    where, attr = split_target(target)
    if where == "__main__":  # a function of the script being run (or of a notebook: no file)
        where = Path(getattr(sys.modules["__main__"], "__file__", None) or "crs").stem
    stem = (
        attr if attr and attr != "respond" else Path(where).stem if where.endswith(".py") else where
    )
    stem = re.sub(r"[^\w.+-]", "_", stem.split(".")[-1]).lstrip("_.+-")[:64] or "crs"
    return f"{stem}-crs" if stem in REFERENCES else stem


def baseline(entry: str) -> tuple[str, str]:
    """(name, target) of an ``--against`` entry: ``v1=crs.py`` names it, else its target's name."""
    name, eq, target = entry.partition("=")
    if eq and not re.search(r"[:/]", name):  # an endpoint's query (http://h/crs?a=b) names nothing
        return name, target
    return target_name(entry), entry


def _systems(value: Any) -> Any:
    """``--against`` entries: names, targets or functions (a function handed over from Python)."""
    return [given(v) for v in split_commas(value)] if isinstance(value, (str, list)) else value


class CardConfig(BaseModel):
    """One CRS against reference systems on every dimension crseval measures."""

    model_config = ConfigDict(extra="forbid")
    target: Target = Field(
        ...,
        description="Your CRS: 'module:function', a .py file (its respond) or 'file.py:function', or an "
        "http(s):// endpoint, all speaking the plug-in protocol (examples/my_crs.py).",
        json_schema_extra={"argument": True},
    )
    name: str | None = Field(
        None, description="Its name in tables (default: from the target, e.g. 'my_crs')."
    )
    against: Annotated[list[str], BeforeValidator(_systems)] = Field(
        ["template", "stubborn", "llm"],
        description="Systems it is compared with, paired on the same simulated users and contexts: "
        "references (template, stubborn, hallucinator; llm needs the LLM) or your own CRSs as targets "
        "('crs_v1.py', 'module:function', 'v1=crs.py' to name it, an http(s):// endpoint).",
    )
    no_llm: bool = Field(
        False, description="Only what needs no LLM: no LLM reference CRS, no judge."
    )
    data: str = Field(
        "sample",
        description="Strategy-labelled dialogues whose contexts the systems answer for behavior alignment: "
        "'sample' (bundled, 8 dialogues: illustrative) or an INSPIRED folder.",
    )
    kb: str | None = Field(
        None,
        description="Movie catalogue of the simulated sessions and of title grounding: ReDial's "
        "movies_id2info.json, an OpenDialKG KB or MovieLens' movies.csv (empty: the bundled sample "
        "catalogue).",
    )
    retry_failed: bool = Field(
        False,
        description="Run again the sessions an earlier run of this card recorded as failed (after "
        "fixing your CRS); without it a resumed card keeps them as they failed.",
        json_schema_extra={"invocation": True},
    )
    human: str | None = Field(
        None,
        description="Real users' dialogues the simulated users are checked against on the card (a "
        "CRSArena-Dial folder, ReDial, INSPIRED, your logs); empty: the figures crseval measured on "
        "CRSArena-Dial.",
    )
    sessions: int = Field(100, ge=2, le=100_000, description="Simulated users per system.")
    turns: int = Field(12, ge=2, le=200, description="Turns per simulated session.")
    llm_sessions: int = Field(
        6,
        ge=2,
        le=100_000,
        description="Simulated users per system where the LLM answers or judges (the LLM reference "
        "and the judge rows); 6, the fewest whose paired permutation test can reach p < .05.",
    )
    llm_turns: int = Field(5, ge=2, le=200, description="Turns of those sessions.")
    llm_contexts: int = Field(
        4,
        ge=1,
        description="Labelled dialogues whose recommender turns the LLM reference answers (behavior "
        "alignment; the CRS answers every one, the pairs are the shared ones).",
    )
    llm: LLMConfig = LLMConfig()
    n_boot: int = Field(
        2000,
        ge=100,
        description="Bootstrap resamples of every CI.",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed of the simulated users, the CRSs and the resamples.",
        json_schema_extra={"signed": True},
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is not None and (v in REFERENCES or not _NAME.fullmatch(v)):
            raise ValueError(
                "name must be letters, digits, _ . + - and not a reference's (template, stubborn, llm)"
            )
        return v

    @field_validator("kb")
    @classmethod
    def _kb(cls, v: str | None) -> str | None:
        """A catalogue that is not one is refused before any work, a dry run's included."""
        if v is not None:
            from crseval.data.kb import load_kb

            load_kb(v)  # a one-line error naming the file and what was expected; cached for the run
        return v

    @field_validator("against")
    @classmethod
    def _against(cls, v: list[str]) -> list[str]:
        for entry in (e for e in v if e not in CARD_REFERENCES):
            name, target = baseline(entry)
            if not (target.startswith(("http://", "https://")) or ".py" in target or ":" in target):
                raise ValueError(
                    f"{entry!r} is neither a reference ({', '.join(CARD_REFERENCES)}) nor a CRS target "
                    "('crs_v1.py', 'module:function', 'v1=crs.py', 'http://…')"
                )
            if name in REFERENCES or not _NAME.fullmatch(name):
                raise ValueError(
                    f"{name!r}: a name is letters, digits, _ . + - and not a reference's"
                )
        return v

    @model_validator(mode="after")
    def _distinct(self) -> "CardConfig":
        names = [self.system, *self.baselines]
        if len(set(names)) < len(names):
            raise ValueError(
                f"two CRSs share a name ({', '.join(names)}); name them: --name v2 --against v1=crs_v1.py"
            )
        return self

    @property
    def system(self) -> str:
        """The CRS's name in tables."""
        return self.name or target_name(str(self.target))

    @property
    def baselines(self) -> dict[str, str]:
        """Your own CRSs in ``against``: name → target."""
        return dict(baseline(e) for e in self.against if e not in CARD_REFERENCES)

    def describe(self, system: str) -> str:
        """What a system on the card is, in words."""
        if system in self.baselines:
            return f"your CRS ({self.baselines[system]})"
        return REFERENCES.get(system, "")

    @property
    def with_llm(self) -> bool:
        return not self.no_llm

    @property
    def references(self) -> list[str]:
        """The names of the systems in ``against`` (references and your own CRSs), in order."""
        own = iter(self.baselines)
        return [
            r if r in CARD_REFERENCES else next(own)
            for r in self.against
            if r != "llm" or self.with_llm
        ]

    def data_files(self) -> dict[str, Path | str]:
        """Each CRS's module file or given function's source is input data (never its folder)."""
        targets = {"target": self.target} | {f"against.{n}": t for n, t in self.baselines.items()}
        found = {k: target_input(t, Path.cwd()) for k, t in targets.items()}
        return {k: v for k, v in found.items() if v is not None}


def _model(config: CardConfig, system: str) -> dict[str, Any]:
    """A system as a shift-run model."""
    if system == "llm":
        return {"name": system, "kind": "llm", "llm": config.llm.model_dump()}
    if system in REFERENCES:
        return {"name": system, "kind": "reference", "reference": system}
    target = config.baselines.get(system, config.target)
    if str(target).startswith(("http://", "https://")):
        return {"name": system, "kind": "http", "url": target}
    return {"name": system, "kind": "callable", "target": target, "folder": str(Path.cwd())}


def _shift(config: CardConfig, systems: list[str], llm: bool) -> dict[str, Any]:
    return {
        "seed": config.seed,
        "sessions": config.llm_sessions if llm else config.sessions,
        "turns": config.llm_turns if llm else config.turns,
        "kb": config.kb,
        "workers": 1 if llm else 2,  # one LLM call at a time: two on 2 cores took 10–17 s each
        "retry_failed": config.retry_failed,
        "n_boot": config.n_boot,
        "models": [_model(config, s) for s in systems],
        "judge": {
            "aspects": list(JUDGED),
            "judges": [{"name": "judge", "llm": config.llm.model_dump()}],
        }
        if llm
        else {"enabled": False},
    }


def _behavior(config: CardConfig, system: str) -> dict[str, Any]:
    if system == "llm":
        return {"data": config.data, "llm": config.llm.model_dump(), "limit": config.llm_contexts}
    plugin = (
        f"crseval.simulation.references:{system}"
        if system in REFERENCES
        else config.baselines.get(system, config.target)
    )
    return {"data": config.data, "system": plugin, "retry_failed": config.retry_failed}


def parts(config: CardConfig) -> list[Part]:
    """The card's manifest: which job runs with which config as which part, and which earlier parts'
    results each needs (the dialogues and the validity read the sessions). The sessions hold the
    references and the known groups of every metric on the card (:data:`crseval.card.rows.ROWS`)."""
    from crseval.card.rows import known_groups

    def systems(llm: bool) -> list[str]:
        return [
            config.system,
            *dict.fromkeys([*known_groups(llm), *(r for r in config.references if r != "llm")]),
        ]

    catalog = {"catalog": config.kb or "sample"}
    out = [
        Part("shift", "shift.run", _shift(config, systems(llm=False), llm=False)),
        Part("dialogues", "dialogues.metrics", catalog, needs=("shift",)),
    ]
    if config.human:
        validity = {"human": config.human, "seed": config.seed, "n_boot": config.n_boot}
        out.append(Part("validity", "shift.validate", validity, needs=("shift",)))
    if config.with_llm:
        out += [
            Part("shift-llm", "shift.run", _shift(config, [*systems(llm=True), "llm"], llm=True)),
            Part("dialogues-llm", "dialogues.metrics", catalog, needs=("shift-llm",)),
        ]
    out += [
        Part(f"behavior/{s}", "behavior.run", _behavior(config, s))
        for s in [config.system, *config.references]
    ]
    return out
