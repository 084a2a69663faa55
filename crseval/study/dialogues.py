"""Rate mode's dialogues: any source crseval reads (a run's sessions, a dataset, a dialogue file), read
once per process and shown as turns of "user" and "system"."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from crseval.study.config import StudyConfig


@lru_cache(maxsize=4)
def _read(path: str) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    from crseval.data.any_dialogues import read_dialogues

    out = {}
    for d in read_dialogues(path).dialogues:
        turns = [("system" if t.role.is_recommender else "user", t.text) for t in d.dialogue.turns]
        out[d.id] = (d.system, turns)
    return out


def source(config: StudyConfig) -> str:
    p = Path(config.dialogues or "")
    return str(p if p.is_absolute() or str(p) == "sample" else Path(config.folder) / p)


def dialogue_ids(config: StudyConfig) -> list[str]:
    """Every dialogue of the study's source, in its order."""
    return list(_read(source(config)))


def dialogue(config: StudyConfig, id: str) -> tuple[str, list[tuple[str, str]]]:
    """(the system that produced it, its turns as (speaker, text))."""
    return _read(source(config))[id]
