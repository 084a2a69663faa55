"""A study's data in the layouts crseval's analyses read, with no conversion:

- ``crs_arena_dial_study.json``: every chat in CRSArena-Dial's layout (``conversation ID`` ``{system}_{user}``,
  ``agent``, ``user``, ``conversation`` of USER/AGENT utterances, ``metadata.sentiment`` from the
  participant's satisfied/frustrated answer) — read by ``crseval criterion``, ``judge fit``, ``dialogues
  metrics`` and ``evaluate-crs --human``;
- ``votes_study.csv``: the pairwise votes in the arena's layout (``session_id``, ``user_id``, ``crs1``,
  ``crs2``, ``vote``, ``feedback``) — ``crseval arena rank``, and ``criterion`` beside the dialogues;
- ``ratings.csv``: the Likert answers in CRS-Que's layout (``participant_id``, ``dialogue_id``,
  ``is_gold_standard``, a column per dimension, reverse-coded items already reversed, ``time_spent``) —
  ``crseval reliability analyze ratings.csv --preset crs-que``;
- ``participants.csv`` (arm, outcome, times); and in ``about/`` (out of the way of the loaders that read
  every JSON file of a folder) ``codebook.md`` / ``codebook.json`` and ``study.json`` (the config hash,
  counts, the export's time).

Participant ids are hashed with the study's config hash (never the platform's id or the page token);
nothing of the server's secret is in the database, so none can reach an export."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine

from crseval.core.signature import content_hash
from crseval.data.ratings import CRS_QUE_DIMENSIONS
from crseval.study.config import LIKERT, StudyConfig
from crseval.study.db import answers, participants, turns, votes

DIALOGUES = "crs_arena_dial_study.json"
VOTES = "votes_study.csv"
RATINGS = "ratings.csv"
ABOUT = "about"  # the codebook and study.json


def user_id(config: StudyConfig, p: dict[str, Any]) -> str:
    """A participant's id in every exported file: a hash of the study and who they are."""
    return content_hash(f"{config.digest}|{p['pid'] or p['token']}".encode(), 16)


def export(engine: Engine, config: StudyConfig, out: Path) -> dict[str, Any]:
    """Write the study's data into ``out``; returns what ``study.json`` holds."""
    with engine.connect() as c:
        people = {r["id"]: dict(r) for r in c.execute(select(participants)).mappings()}
        said = [dict(r) for r in c.execute(select(turns).order_by(turns.c.id)).mappings()]
        given = [dict(r) for r in c.execute(select(answers).order_by(answers.c.id)).mappings()]
        cast = [dict(r) for r in c.execute(select(votes).order_by(votes.c.id)).mappings()]
    out.mkdir(parents=True, exist_ok=True)
    ids = {k: user_id(config, p) for k, p in people.items()}
    by = {(a["participant"], a["unit"], a["item"]): a["value"] for a in given}
    dialogues = _dialogues(config, people, said, by, ids)
    _write_json(out / DIALOGUES, dialogues)
    vote_rows = [
        [
            _when(v["at"]),
            ids[v["participant"]],
            v["system_a"],
            v["system_b"],
            v["vote"],
            v["feedback"],
        ]
        for v in cast
    ]
    _write_csv(
        out / VOTES, ["session_id", "user_id", "crs1", "crs2", "vote", "feedback"], vote_rows
    )
    ratings = _ratings(config, people, given, ids, said)
    _write_csv(out / RATINGS, _rating_columns(config), [list(r.values()) for r in ratings])
    _participants(out, people, ids, said)
    codebook = _codebook(config)
    (out / ABOUT).mkdir(exist_ok=True)
    _write_json(out / ABOUT / "codebook.json", codebook)
    (out / ABOUT / "codebook.md").write_text(_codebook_md(codebook), encoding="utf-8")
    summary = {
        "study": config.name,
        "version": config.version,
        "config": config.digest,
        "exported": time.strftime("%Y-%m-%d %H:%M:%S"),
        "participants": len(people),
        "completed": sum(p["outcome"] == "completed" for p in people.values()),
        "dialogues": len(dialogues),
        "turns": len(said),
        "votes": len(cast),
        "ratings": len(ratings),
        "files": [DIALOGUES, VOTES, RATINGS, "participants.csv", f"{ABOUT}/codebook.md"],
    }
    _write_json(out / ABOUT / "study.json", summary)
    return summary


def _participants(out: Path, people: dict, ids: dict, said: list[dict]) -> None:
    rows = [
        [
            ids[k],
            p["arm"].replace("|", " then "),
            p["outcome"] or "",
            _when(p["created"]),
            _when(p["finished"]),
            sum(t["participant"] == k and t["speaker"] == "user" for t in said),
        ]
        for k, p in people.items()
    ]
    header = ["participant_id", "arm", "outcome", "started", "finished", "turns"]
    _write_csv(out / "participants.csv", header, rows)


def _dialogues(config, people, said, by, ids) -> list[dict[str, Any]]:
    chats: dict[tuple[int, int], list[dict]] = {}
    for t in said:
        chats.setdefault((t["participant"], t["chat"]), []).append(t)
    out = []
    for (who, chat), ts in chats.items():
        system, user = ts[0]["system"], ids[who]
        conv = f"{system}_{user}"
        utterances = [t for t in ts if not t["error"] and t["text"]]
        sentiment = by.get((who, f"chat:{chat}", "sentiment"))
        out.append(
            {
                "conversation ID": conv,
                "agent": {"id": system, "type": "AGENT"},
                "user": {"id": user, "type": "USER"},
                "conversation": [
                    {
                        "participant": "USER" if t["speaker"] == "user" else "AGENT",
                        "utterance": t["text"],
                        "utterance ID": f"{conv}_{i}",
                    }
                    for i, t in enumerate(utterances)
                ],
                "metadata": {
                    **({"sentiment": sentiment} if sentiment else {}),
                    "chat": "AB"[chat] if config.pairs else "A",
                    "outcome": people[who]["outcome"] or "in progress",
                    "crs_errors": sum(bool(t["error"]) for t in ts),
                    "latency_ms": [t["latency_ms"] for t in ts if t["speaker"] == "system"],
                },
            }
        )
    return out


def _rating_columns(config: StudyConfig) -> list[str]:
    own = [i.id for i in config.questionnaire.items if i.kind == "likert" and i.expect is None]
    return [
        "annotation_id", "participant_id", "dialogue_id", "is_gold_standard", *CRS_QUE_DIMENSIONS,
        *[i for i in own if i not in CRS_QUE_DIMENSIONS], "time_spent", "timestamp",
    ]  # fmt: skip


def _ratings(config, people, given, ids, said) -> list[dict[str, Any]]:
    """One row per (participant, rated unit): Likert answers scored (reverse items as 6 − answer)."""
    items = {i.id: i for i in config.questionnaire.all_items() if i.kind == "likert"}
    columns = _rating_columns(config)
    units: dict[tuple[int, str], list[dict]] = {}
    for a in given:
        units.setdefault((a["participant"], a["unit"]), []).append(a)
    rows = []
    for (who, unit), mine in units.items():
        if unit.startswith("chat:"):
            chat = int(unit.split(":")[1])
            system = next(
                (t["system"] for t in said if t["participant"] == who and t["chat"] == chat), ""
            )
            dialogue = f"{system}_{ids[who]}"
        else:
            dialogue = unit
        row = dict.fromkeys(columns, "")
        row.update(
            annotation_id=len(rows) + 1,
            participant_id=ids[who],
            dialogue_id=dialogue,
            is_gold_standard=int(unit in config.gold),
            time_spent=round(max(a["at"] for a in mine) - people[who]["created"], 1),
            timestamp=_when(max(a["at"] for a in mine)),
        )
        for a in mine:
            item = items.get(a["item"])
            if item is not None and item.expect is None and a["item"] in row:
                v = int(a["value"])
                row[a["item"]] = 6 - v if item.reverse else v
        rows.append(row)
    return rows


def _codebook(config: StudyConfig) -> dict[str, Any]:
    return {
        "study": config.name,
        "version": config.version,
        "questionnaire_version": config.questionnaire.version,
        "config": config.digest,
        "mode": config.mode,
        "systems": {s.name: s.target for s in config.systems},
        "pairs": config.pairs,
        "items": [
            {
                "id": i.id,
                "text": i.text,
                "kind": i.kind,
                "scale": {str(n + 1): a for n, a in enumerate(LIKERT)}
                if i.kind == "likert"
                else ["satisfied", "frustrated"]
                if i.kind == "label"
                else "free text",
                "reverse": i.reverse,
                "attention_check": i.expect is not None,
                "exported_in": _where(i),
            }
            for i in config.questionnaire.all_items()
        ],
        "outcomes": {o: c.code for o, c in config.completion.items()},
    }


def _where(item) -> str:
    if item.expect is not None:
        return "not exported (an attention check: participants.csv's outcome says who failed)"
    if item.kind == "likert":
        return f"{RATINGS}: column {item.id}" + (" (reversed: 6 − answer)" if item.reverse else "")
    if item.id == "sentiment":
        return f"{DIALOGUES}: metadata.sentiment"
    return "not exported (free text stays in the database: it may identify a participant)"


def _codebook_md(book: dict[str, Any]) -> str:
    lines = [
        f"# Codebook: {book['study']} (version {book['version']}, questionnaire {book['questionnaire_version']})",
        "",
        f"Config hash `{book['config']}`; mode {book['mode']}; systems: "
        + ", ".join(f"{k} (`{v}`)" for k, v in book["systems"].items()),
        "",
        "| id | question | kind | reverse | where |",
        "|---|---|---|---|---|",
    ]
    for i in book["items"]:
        text = i["text"].replace("|", "\\|")
        lines.append(
            f"| {i['id']} | {text} | {i['kind']} | {'yes' if i['reverse'] else ''} | {i['exported_in']} |"
        )
    lines += ["", "Outcomes and completion codes: "
              + ", ".join(f"{o} `{c}`" for o, c in book["outcomes"].items()), ""]  # fmt: skip
    return "\n".join(lines)


def _when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) if t else ""


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    tmp.replace(path)
