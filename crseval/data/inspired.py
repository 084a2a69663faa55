"""INSPIRED dialogues with recommender strategy labels (``expert_label``).

Tab-separated, no quoting (``csv.QUOTE_NONE``). One row per utterance; consecutive rows of the same
speaker become separate utterances of one :class:`Turn`. Seeker rows carry no label; recommender
rows carry one of the 13 strategies or ``no_strategy`` — anything else is an error naming the line.
``*_dict`` columns are Python literals, parsed with ``ast.literal_eval`` (never ``eval``).
The acceptance outcome (``fine_label``: accept_rating_good … reject) goes to the dialogue metadata.
The unquoted files spell a double quote as the token ``QUOTATION_MARK``; it is decoded (and counted).
"""

from __future__ import annotations

import ast
import csv
import re
from collections import Counter
from pathlib import Path

from crseval.data.strategies import LABELS
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import dataset_info, existing, files_of, read_rows
from crseval.data.base import DialogueDataset

REQUIRED = ("dialog_id", "utt_id", "speaker", "turn_id", "text", "expert_label")
OUTCOMES = (
    "accept_rating_good",
    "accept_rating_mod",
    "accept_uninterested",
    "accept_others",
    "reject",
)
SPEAKERS = {"RECOMMENDER": Role.RECOMMENDER, "SEEKER": Role.SEEKER}
QUOTE_TOKEN = "QUOTATION_MARK"  # the unquoted TSV spells '"' this way


_ENTRY = re.compile(r"""['"](.+?)['"]?\s*:\s*(\d+)""")


def _literal(value: str, *, file: Path, line: int, field: str, notes: list[str]) -> dict:
    """A ``*_dict`` column. The public files hold a few malformed literals (a missing quote); those
    are repaired entry by entry with a regex and the repair is reported in the notes."""
    if not value.strip():
        return {}
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        entries = dict((k.strip(), int(v)) for k, v in _ENTRY.findall(value))
        if not entries:
            raise CrsevalError(
                f"{value[:40]!r} is not a Python dict literal",
                file=file,
                line=line,
                field=field,
                expected="e.g. {'Title (2019)': 0}",
            ) from None
        notes.append(
            f"{file.name}:{line}: malformed {field} literal repaired ({len(entries)} entries)"
        )
        return entries
    if not isinstance(parsed, dict):
        raise CrsevalError(
            f"is a {type(parsed).__name__}", file=file, line=line, field=field, expected="a dict"
        )
    return parsed


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(";") if v.strip()]


def _label(role: Role, row: dict[str, str], path: Path, line: int) -> str | None:
    """The row's strategy label: required, and in the taxonomy, on a recommender's row; none on a seeker's."""
    label = row["expert_label"].strip() or None
    if role is Role.RECOMMENDER:
        if label is None:
            raise CrsevalError(
                "recommender utterance without a strategy label",
                file=path,
                line=line,
                field="expert_label",
                expected="one of " + ", ".join(LABELS),
            )
        if label not in LABELS:
            raise CrsevalError(
                f"label {label!r} is outside the taxonomy",
                file=path,
                line=line,
                field="expert_label",
                expected="one of " + ", ".join(LABELS),
            )
    elif label:
        raise CrsevalError(
            f"seeker utterance carries a strategy label {label!r}",
            file=path,
            line=line,
            field="expert_label",
            expected="an empty label on SEEKER rows",
        )
    return label


def _utterance(row: dict[str, str], path: Path, line: int, quotes: list[int]) -> Utterance:
    """One row as an utterance (``quotes[0]`` counts the QUOTATION_MARK tokens decoded)."""
    speaker = row["speaker"].strip().upper()
    if speaker not in SPEAKERS:
        raise CrsevalError(
            f"unknown speaker {row['speaker']!r}",
            file=path,
            line=line,
            field="speaker",
            expected="RECOMMENDER or SEEKER",
        )
    role = SPEAKERS[speaker]
    label = _label(role, row, path, line)
    try:
        utt_id, turn_id = int(row["utt_id"]), int(row["turn_id"])
    except ValueError:
        raise CrsevalError(
            "utt_id/turn_id must be integers", file=path, line=line, field="utt_id"
        ) from None
    meta = {"utt_id": utt_id, "turn_id": turn_id, "line": line}
    for col in ("text_with_placeholder", "second_label", "genres", "people_names"):
        if row.get(col, "").strip():
            meta[col] = row[col].strip()
    text = row["text"]
    if QUOTE_TOKEN in text:
        quotes[0] += text.count(QUOTE_TOKEN)
        text = text.replace(QUOTE_TOKEN, '"')
    return Utterance(role, text, label, _split(row.get("movies", "")), meta)


def _dialogue_meta(
    rows_: list[tuple[int, dict[str, str]]], did: str, split: str, path: Path, notes: list[str]
) -> dict:
    """A dialogue's split, outcome, recommended video and its movie and genre dictionaries."""
    first_line, first = rows_[0]
    outcomes = Counter(r.get("fine_label", "").strip() for _, r in rows_)
    valid = [o for o, _ in outcomes.most_common() if o in OUTCOMES]
    if len(outcomes) > 1:
        notes.append(
            f"{path.name}: dialogue {did} has mixed outcome labels {dict(outcomes)}; used {valid[:1]}"
        )
    return {
        "split": split,
        "outcome": valid[0] if valid else None,
        "accepted": (valid[0].startswith("accept") if valid else None),
        "recommended_video": first.get("movie_id", "").strip() or None,
        "movies": _literal(
            first.get("movie_dict", ""), file=path, line=first_line, field="movie_dict", notes=notes
        ),
        "genres": _literal(
            first.get("genre_dict", ""), file=path, line=first_line, field="genre_dict", notes=notes
        ),
    }


def load_file(path: Path, split: str, notes: list[str]) -> list[Dialogue]:
    header, rows = read_rows(path, delimiter="\t", required=REQUIRED, quoting=csv.QUOTE_NONE)
    by_dialogue: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for line, row in rows:
        by_dialogue.setdefault(row["dialog_id"], []).append((line, row))
    if not by_dialogue:
        raise CrsevalError(
            "no rows after the header", file=path, expected="INSPIRED utterance rows"
        )
    quotes = [0]
    dialogues = [
        Dialogue.from_utterances(
            did,
            [_utterance(row, path, line, quotes) for line, row in rows_],
            _dialogue_meta(rows_, did, split, path, notes),
        )
        for did, rows_ in by_dialogue.items()
    ]
    if quotes[0]:
        notes.append(f"{path.name}: {quotes[0]} QUOTATION_MARK tokens decoded to '\"'")
    return dialogues


def load(path: str | Path) -> DialogueDataset:
    """``path``: one INSPIRED .tsv file, or a folder with train/dev/test .tsv files (all are read)."""
    p = existing(path, "INSPIRED data")
    files = files_of(p, "*.tsv", "dev.tsv / test.tsv from INSPIRED")
    info = dataset_info("inspired", p, *files)
    dialogues: list[Dialogue] = []
    for f in files:
        dialogues += load_file(f, f.stem, info.notes)
    ids = Counter(d.id for d in dialogues)
    if max(ids.values()) > 1:
        dup = next(k for k, v in ids.items() if v > 1)
        raise CrsevalError(
            f"dialogue id {dup!r} appears in more than one file", file=p, field="dialog_id"
        )
    return DialogueDataset(info, dialogues)
