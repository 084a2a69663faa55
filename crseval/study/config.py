"""A study's declaration, ``STUDY.toml``: what participants do (chat with a CRS, or with two and vote; or
rate existing dialogues), the questionnaire they answer, how many of each arm, the completion codes and
the limits that keep the server safe. Validated once, hashed (the export carries the hash), and versioned
by the researcher (``version``): a changed questionnaire under the same version is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crseval.core.config import load_config
from crseval.core.signature import content_hash, stable_json
from crseval.simulation.config import NAME, ModelConfig
from crseval.simulation.references import NAMES as REFERENCES

# CRS-Que's rated dimensions (crseval's reliability preset reads these columns), each as one statement
# rated 1–5 (strongly disagree … strongly agree)
CRS_QUE = {
    "accuracy": "The recommended items matched my interests.",
    "novelty": "The system helped me discover new items.",
    "interaction_adequacy": "The system asked adequate questions about my preferences.",
    "explainability": "The system explained why the items were recommended to me.",
    "cui_adaptability": "The system adapted to my changing preferences.",
    "cui_understanding": "The system understood what I said.",
    "cui_response_quality": "The system's responses were of good quality.",
    "cui_attentiveness": "The system paid attention to what I was saying.",
    "perceived_ease_of_use": "It was easy to find what I liked with this system.",
    "perceived_usefulness": "The system helped me find items to watch.",
    "user_control": "I felt in control of the conversation.",
    "transparency": "I understood why the system recommended what it did.",
    "cui_humanness": "The system behaved like a human.",
    "cui_rapport": "The system was friendly to me.",
    "trust_confidence": "I am confident I will like the items the system recommended.",
    "satisfaction": "Overall, I am satisfied with the system.",
    "intention_to_use": "I would use this system again.",
    "intention_to_purchase": "I would watch the items recommended to me.",
}
LIKERT = ("Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree")
OUTCOMES = ("completed", "failed_check", "crs_failed")


class Item(BaseModel):
    """One question. ``likert``: 1–5 with :data:`LIKERT`'s anchors (``reverse``: scored 6 − answer in the
    export, so that higher is better throughout); ``label``: CRS Arena's satisfied / frustrated;
    ``text``: free text. An attention check (``expect``) is a Likert item with the one right answer."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(..., pattern=r"^[a-z][a-z0-9_]{0,40}$")
    text: str = Field(..., min_length=1, max_length=500)
    kind: Literal["likert", "label", "text"] = "likert"
    reverse: bool = False
    expect: int | None = Field(None, ge=1, le=5, description="an attention check's right answer")
    required: bool = True

    @model_validator(mode="after")
    def _coherent(self) -> "Item":
        if (self.reverse or self.expect is not None) and self.kind != "likert":
            raise ValueError(f"item {self.id!r}: reverse and expect are for likert items")
        return self


class Questionnaire(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str = Field("1", min_length=1, max_length=40)
    crs_que: list[str] | bool = Field(
        ["accuracy", "satisfaction", "cui_understanding", "trust_confidence"],
        description="CRS-Que dimensions asked (true: all 18, false: none)",
    )
    label: bool = Field(True, description="ask CRS Arena's satisfied / frustrated")
    feedback: bool = Field(True, description="a free-text comment (optional to answer)")
    items: list[Item] = Field(default_factory=list, description="items of your own")
    attention: bool = Field(True, description="one built-in attention check")

    @field_validator("crs_que")
    @classmethod
    def _known(cls, v: list[str] | bool) -> list[str] | bool:
        unknown = [d for d in (v if isinstance(v, list) else []) if d not in CRS_QUE]
        if unknown:
            raise ValueError(
                f"unknown CRS-Que dimension {unknown[0]!r} (one of {', '.join(CRS_QUE)})"
            )
        return v

    def all_items(self) -> list[Item]:
        """Every question in the order shown."""
        dims = list(CRS_QUE) if self.crs_que is True else (self.crs_que or [])
        out = [Item(id=d, text=CRS_QUE[d]) for d in dims]
        if self.attention:
            out.append(
                Item(id="attention", text="To show you read this, please choose 'Agree'.", expect=4)
            )
        out += self.items
        if self.label:
            out.append(
                Item(id="sentiment", text="How did the conversation leave you?", kind="label")
            )
        if self.feedback:
            out.append(
                Item(
                    id="feedback", text="Anything you want to tell us?", kind="text", required=False
                )
            )
        ids = [i.id for i in out]
        if len(set(ids)) < len(ids):
            raise ValueError(
                f"two questions share the id {next(i for i in ids if ids.count(i) > 1)!r}"
            )
        return out


class System(BaseModel):
    """A CRS participants chat with: any target ``evaluate-crs`` takes — ``module:function``, ``file.py``,
    ``file.py:function``, an ``http(s)://`` endpoint, a reference CRS's name, or ``llm`` (crseval's LLM
    CRS)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., pattern=NAME)
    target: str = Field(..., min_length=1)

    def model(self, folder: Path) -> ModelConfig:
        """The system as the simulation's :class:`ModelConfig` (how every crseval job builds a CRS)."""
        t = self.target
        if t.startswith(("http://", "https://")):
            return ModelConfig(name=self.name, kind="http", url=t)
        if t == "llm":
            return ModelConfig(name=self.name, kind="llm")
        if t in REFERENCES:
            return ModelConfig(name=self.name, kind="reference", reference=t)
        return ModelConfig(name=self.name, kind="callable", target=t, folder=str(folder))


class Completion(BaseModel):
    """What a participant gets at the end, per outcome: a code to paste into the platform, and/or a URL
    to be sent to (``{code}`` in it is replaced)."""

    model_config = ConfigDict(extra="forbid")
    code: str = Field(..., min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    redirect: str | None = Field(None, pattern=r"^https://")


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_chars: int = Field(1000, ge=10, le=20_000, description="longest message accepted")
    min_seconds_between: float = Field(
        0.5, ge=0, le=60, description="a participant's messages at most one per this many seconds"
    )
    crs_timeout_s: float = Field(
        30, gt=0, le=600, description="a CRS reply slower than this failed"
    )
    crs_failures: int = Field(
        3, ge=1, le=20, description="failed replies in a row that end the study for the participant"
    )
    stale_minutes: float = Field(
        60, gt=0, description="a chat idle this long no longer holds its arm's place"
    )


class StudyConfig(BaseModel):
    """One study. ``mode = "chat"``: each participant chats with one system (``systems``), or with two
    and votes (``pairs = true``: every pair of systems, the order counterbalanced); ``mode = "rate"``:
    raters rate existing ``dialogues`` on the same questionnaire."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., pattern=NAME)
    version: str = Field("1", min_length=1, max_length=40)
    mode: Literal["chat", "rate"] = "chat"
    title: str = Field("A study of movie recommenders", max_length=200)
    consent: str = Field(
        "You will chat with a movie recommender and answer a few questions about it. It takes about "
        "10 minutes. Your messages and answers are stored without your name and used for research only.",
        max_length=5000,
    )
    instructions: str = Field(
        "Tell the system what kind of movie you would like to watch tonight, and chat until it has "
        "recommended something you would watch — or you are sure it cannot.",
        max_length=2000,
    )
    systems: list[System] = Field(default_factory=list)
    pairs: bool = Field(False, description="each participant chats with two systems and votes")
    target: int = Field(
        30, ge=1, le=100_000, description="completed participants per system or pair"
    )
    min_turns: int = Field(3, ge=1, le=100, description="messages before a chat can be finished")
    max_turns: int = Field(20, ge=1, le=200, description="messages after which a chat ends")
    questionnaire: Questionnaire = Questionnaire()
    completion: dict[Literal[OUTCOMES], Completion] = Field(
        default_factory=lambda: {o: Completion(code=f"CRSEVAL-{o.upper()}") for o in OUTCOMES}
    )
    limits: Limits = Limits()
    # rate mode
    dialogues: str | None = Field(
        None, description="rate mode: a run's folder or a dialogue file crseval reads"
    )
    raters: int = Field(3, ge=1, le=100, description="rate mode: raters per dialogue")
    per_rater: int = Field(5, ge=1, le=100, description="rate mode: dialogues a rater rates")
    gold: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="rate mode: gold dialogues and their right answers ({id = {sentiment = "
        "'frustrated'}}): each rater rates one, and a wrong answer fails the check",
    )
    kb: str | None = Field(
        None,
        description="the catalogue of reference and LLM CRSs (default: crseval's bundled sample)",
    )
    seed: int = 0
    folder: str = Field(".", description="set from the file: where targets and the database live")

    @model_validator(mode="after")
    def _coherent(self) -> "StudyConfig":
        if self.mode == "chat" and not self.systems:
            raise ValueError("a chat study needs [[systems]] (name, target)")
        if self.pairs and len(self.systems) < 2:
            raise ValueError("pairs = true needs two systems or more")
        if self.mode == "rate" and not self.dialogues:
            raise ValueError("a rate study needs dialogues = RUN or FILE")
        names = [s.name for s in self.systems]
        if len(set(names)) < len(names):
            raise ValueError("two systems share a name")
        if self.min_turns > self.max_turns:
            raise ValueError("min_turns is above max_turns")
        if set(self.completion) != set(OUTCOMES):
            raise ValueError(f"[completion] needs one entry per outcome: {', '.join(OUTCOMES)}")
        self.questionnaire.all_items()  # duplicate ids fail here
        return self

    @property
    def arms(self) -> list[tuple[str, ...]]:
        """What one participant is assigned: a system, or an ordered pair (both orders: counterbalanced)."""
        names = [s.name for s in self.systems]
        if not self.pairs:
            return [(n,) for n in names]
        return [(a, b) for a in names for b in names if a != b]

    def arm_target(self) -> int:
        """Completed participants wanted per arm: a pair's target shared by its two orders."""
        return -(-self.target // 2) if self.pairs else self.target

    def system(self, name: str) -> System:
        return next(s for s in self.systems if s.name == name)

    @property
    def digest(self) -> str:
        """The study's config hash: what the export and every participant row carry."""
        return content_hash(stable_json(self.model_dump(mode="json", exclude={"folder"})).encode())

    def default_db(self) -> str:
        return f"sqlite:///{Path(self.folder) / f'{self.name}.sqlite'}"


def load_study(path: str | Path) -> StudyConfig:
    """``STUDY.toml`` validated; a bad key or value is one line naming it (crseval's config errors)."""
    p = Path(path)
    config = load_config(p, StudyConfig)
    return config.model_copy(update={"folder": str(p.resolve().parent)})


def study_from(data: dict[str, Any], folder: str | Path = ".") -> StudyConfig:
    """A study from a dict (tests and Python): as :func:`load_study` reads a file."""
    from crseval.core.config import validate

    return validate(StudyConfig, {**data, "folder": str(Path(folder).resolve())})
