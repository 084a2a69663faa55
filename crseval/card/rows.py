"""What the card shows, declared once: each row a metric some capability registers, where its units are,
and the known groups it should separate (a CRS expected to score better, one expected to score worse)."""

from __future__ import annotations

from dataclasses import dataclass

from crseval.adaptation.known_groups import FOLLOWS, GROUNDS


@dataclass(frozen=True)
class Row:
    dimension: str
    metric: str  # a registered metric of ``capability``
    capability: str
    part: str  # shift, dialogues or behavior: the part whose per-unit table holds it
    column: str  # its column there
    groups: tuple[str, str] | None = (
        FOLLOWS  # (expected better, expected worse); None: no known groups
    )
    llm: bool = False  # measured by the LLM (the judge): only in the LLM parts


ROWS = (
    Row("adaptation", "follow.follow_rate", "shift", "shift", "follow.follow_rate"),
    Row("adaptation", "follow.success", "shift", "shift", "follow.success"),
    Row("adaptation", "tas", "shift", "shift", "tas"),
    Row("adaptation", "personalization", "shift", "shift", "personalization", llm=True),
    Row(
        "in dialogue",
        "out_of_catalogue_rate",
        "dialogues",
        "dialogues",
        "out_of_catalogue_rate",
        GROUNDS,
    ),
    Row("in dialogue", "repetition_rate", "dialogues", "dialogues", "repetition_rate"),
    Row("in dialogue", "rejected_repeat_rate", "dialogues", "dialogues", "rejected_repeat_rate"),
    Row("behavior alignment", "explicit_ba_counted", "behavior", "behavior", "match", None),
    Row("behavior alignment", "implicit_ba", "behavior", "behavior", "p_same", None),
)


def rows(with_llm: bool) -> list[Row]:
    return [r for r in ROWS if with_llm or not r.llm]


def known_groups(llm: bool) -> list[str]:
    """The systems the known groups need: of every row (``llm`` False), or of the LLM-judged rows."""
    return list(dict.fromkeys(s for r in ROWS if r.groups and (r.llm or not llm) for s in r.groups))
