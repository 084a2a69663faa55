"""Your own dialogue logs in the simplest layout: one turn per line.

A CSV with a header, or a JSONL of objects, with the fields

- ``dialogue``: the dialogue's id; ``turn``: its position (an integer; lines may come in any order);
- ``speaker``: ``user`` or ``system`` (User/Seeker/Human, System/Assistant/Recommender/Bot/CRS are read too);
- ``text``: what was said;
- optional ``system``: the CRS that spoke (default: the file's name), and ``items``: the ids of the items
  recommended in that turn (``;``-separated in a CSV, a list in JSONL);
- any other column holds a person's rating of the whole dialogue (``satisfaction``, ``overall`` …): a
  number on at least one of its lines, the same on every line that has one.

``shift score``, ``dialogues metrics`` and every reader of session logs take it, and ``judge meta-eval``
correlates a judge with its ratings; a line that breaks the layout is refused in one line naming the file,
the line and the field.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from crseval.core.errors import CrsevalError
from crseval.data.io import read_jsonl, read_text

FIELDS = ("dialogue", "turn", "speaker", "text")
OPTIONAL = ("system", "items")
LAYOUT = (
    "one turn per line: dialogue, turn, speaker, text[, system, items, ratings of the dialogue]"
)


def is_turn_table(path: Path) -> bool:
    """A CSV whose header, or a JSONL whose first object, has the four fields."""
    if path.suffix not in (".csv", ".jsonl") or not path.is_file():
        return False
    with open(path, encoding="utf-8", errors="replace") as f:
        first = next((ln for ln in f if ln.strip()), "")
    if path.suffix == ".csv":
        return set(FIELDS) <= {h.strip().lower() for h in next(csv.reader([first]), [])}
    return all(f'"{k}"' in first for k in FIELDS) and '"turns"' not in first


def _rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(path)))
        reader.fieldnames = [h.strip().lower() for h in reader.fieldnames or []]
        return [(i + 2, row) for i, row in enumerate(reader)]  # line 1 is the header
    rows = []
    for line, obj in read_jsonl(path):
        if not isinstance(obj, dict):
            raise CrsevalError("not an object", file=path, line=line, expected=LAYOUT)
        rows.append((line, obj))
    return rows


def _items(value: Any, path: Path, line: int) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(";") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
        return [str(v) for v in value]
    raise CrsevalError(
        "items must be item ids", file=path, line=line, field="items", expected="'id1;id2' or [..]"
    )


def read_turn_table(path: Path) -> list[dict[str, Any]]:
    """The file's dialogues as session logs of the widely used layout (``model_name``, ``conversation``),
    in order of first appearance, each utterance with its recommended ``items``."""
    dialogues: dict[str, dict[str, Any]] = {}
    for line, row in _rows(path):
        for k in FIELDS:
            if row.get(k) in (None, ""):
                raise CrsevalError(f"no {k}", file=path, line=line, field=k, expected=LAYOUT)
        try:
            turn = int(str(row["turn"]).strip())
        except ValueError:
            raise CrsevalError(
                f"turn {row['turn']!r} is not an integer", file=path, line=line, field="turn"
            ) from None
        if not isinstance(row["text"], str):
            raise CrsevalError("text is not a string", file=path, line=line, field="text")
        d = dialogues.setdefault(
            str(row["dialogue"]),
            {"model_name": str(row.get("system") or path.stem), "utterances": [], "_seen": set()},
        )
        if turn in d["_seen"]:
            raise CrsevalError(
                f"dialogue {row['dialogue']!r} has turn {turn} twice",
                file=path,
                line=line,
                field="turn",
            )
        d["_seen"].add(turn)
        _ratings(d.setdefault("ratings", {}), row, path, line)
        d["utterances"].append(
            (
                turn,
                {
                    "speaker": str(row["speaker"]),
                    "text": row["text"],
                    "items": _items(row.get("items"), path, line),
                },
            )
        )
    if not dialogues:
        raise CrsevalError("no turns", file=path, expected=LAYOUT)
    return [
        {
            "dialogue": did,
            "model_name": d["model_name"],
            "conversation": [u for _, u in sorted(d["utterances"], key=lambda x: x[0])],
            "ratings": d["ratings"],
        }
        for did, d in dialogues.items()
    ]


def _ratings(ratings: dict[str, float], row: dict[str, Any], path: Path, line: int) -> None:
    """The line's ratings of its dialogue (every column beyond the layout's), checked against the ones its
    other lines gave."""
    for key, value in row.items():
        if key in FIELDS or key in OPTIONAL or key is None or value in (None, ""):
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise CrsevalError(
                f"rating {value!r} is not a number", file=path, line=line, field=str(key)
            ) from None
        if ratings.setdefault(str(key), number) != number:
            raise CrsevalError(
                f"a second rating of the dialogue ({number:g}, before {ratings[key]:g})",
                file=path,
                line=line,
                field=str(key),
                fix="give a dialogue's rating once, or the same on every line",
            )


def judged_set(path: Path, level: str):
    """Your own logs, one turn per line, with a rating column (or several) per dialogue: each dialogue an
    item, its ratings the labels, the scale the observed range."""
    from crseval.core.types import Dialogue, Role, Utterance
    from crseval.data.io import dataset_info
    from crseval.data.judged_types import JudgedItem, JudgedSet

    if level != "dialogue":
        raise CrsevalError(
            "a turn table carries dialogue-level ratings",
            file=path,
            field="level",
            fix="use --level dialogue",
        )
    out = JudgedSet(dataset_info("own-logs", path), "dialogue", observed_scales=True)
    for d in read_turn_table(path):
        utts = [Utterance(Role.parse(u["speaker"]), u["text"]) for u in d["conversation"]]
        out.items.append(
            JudgedItem(
                d["dialogue"],
                Dialogue.from_utterances(d["dialogue"], utts),
                d["ratings"],
                system=d["model_name"],
            )
        )
    if not any(it.labels for it in out.items):
        raise CrsevalError(
            "no ratings to compare a judge with",
            file=path,
            fix="add a column with a person's rating of each dialogue (e.g. satisfaction), on any of its lines",
        )
    out.scales = {a: out.scale(a) for a in out.aspects}
    return out
