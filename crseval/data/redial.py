"""ReDial dialogues (jsonl) and the ReDial movie table (``movies_id2info.json``).

Movies appear in messages as ``@12345`` and are resolved through each dialogue's ``movieMentions``;
a mention missing from that table stays as ``@id`` and is counted in the dataset notes. Text is
decoded (URL escapes such as ``%3F``, HTML entities such as ``&quot;``) and titles lose doubled spaces.
The conversation initiator is the seeker, the respondent the recommender.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Item, Role, Utterance
from crseval.data.io import dataset_info, existing, files_of, need, read_json, read_jsonl
from crseval.data.base import DialogueDataset, ItemCatalog

MENTION = re.compile(r"@(\d+)")
YEAR = re.compile(r"\((\d{4})\)\s*$")


def clean_text(text: str) -> str:
    """Decode URL escapes and HTML entities; collapse runs of spaces."""
    if "%" in text:
        text = unquote(text)
    return re.sub(r"[ \t]{2,}", " ", html.unescape(text)).strip()


def clean_title(title: str) -> str:
    return re.sub(r"\s+", " ", clean_text(title)).replace(" )", ")").strip()


def _dialogue(obj: dict, path: Path, line: int, unresolved: list[str]) -> Dialogue:
    cid = str(need(obj, "conversationId", (str, int), file=path, line=line))  # an object, first
    mentions_raw = obj.get("movieMentions") or {}
    if isinstance(mentions_raw, list):  # some dumps store an empty list
        mentions_raw = {}
    if not isinstance(mentions_raw, dict):
        raise CrsevalError(
            "movieMentions is not an object", file=path, line=line, field="movieMentions"
        )
    mentions = {str(k): clean_title(str(v)) for k, v in mentions_raw.items() if v}
    seeker = obj.get("initiatorWorkerId")
    messages = need(obj, "messages", list, file=path, line=line)
    utts = []
    for i, m in enumerate(messages):
        text = need(m, "text", str, file=path, line=line, context=f"messages[{i}]")
        sender = need(
            m, "senderWorkerId", (int, str), file=path, line=line, context=f"messages[{i}]"
        )
        role = Role.SEEKER if sender == seeker else Role.RECOMMENDER
        items, ids = [], []

        def resolve(match: re.Match) -> str:
            mid = match.group(1)
            if mid in mentions:
                items.append(mentions[mid])
                ids.append(mid)
                return mentions[mid]
            unresolved.append(mid)
            return match.group(0)

        utts.append(
            Utterance(
                role,
                MENTION.sub(resolve, clean_text(text)),
                None,
                items,
                {
                    "message_id": m.get("messageId"),
                    "time_offset": m.get("timeOffset"),
                    "mention_ids": ids,
                },
            )
        )
    meta = {
        "movie_mentions": mentions,
        "seeker_questions": obj.get("initiatorQuestions") or {},
        "recommender_questions": obj.get("respondentQuestions") or {},
    }
    return Dialogue.from_utterances(cid, utts, meta)


def load(path: str | Path) -> DialogueDataset:
    """One ReDial ``.jsonl`` file, or a folder of them (every ``*.jsonl`` is read)."""
    p = existing(path, "ReDial data")
    files = files_of(p, "*.jsonl", "ReDial *_data.jsonl files")
    info = dataset_info("redial", p, *files)
    dialogues, seen = [], set()
    for f in files:
        unresolved: list[str] = []
        for line, obj in read_jsonl(f):
            d = _dialogue(obj, f, line, unresolved)
            if d.id in seen:
                raise CrsevalError(
                    f"conversationId {d.id} appears twice",
                    file=f,
                    line=line,
                    field="conversationId",
                )
            seen.add(d.id)
            d.metadata["split"] = f.stem
            dialogues.append(d)
        if unresolved:
            info.notes.append(
                f"{f.name}: {len(unresolved)} @mentions not in movieMentions kept as '@id'"
            )
    return DialogueDataset(info, dialogues)


def _names(value, path: Path, key: str, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise CrsevalError(
            f"movie {key}: is {type(value).__name__}", file=path, field=field, expected="a list"
        )
    return list(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))


def load_movies(path: str | Path) -> ItemCatalog:
    """``movies_id2info.json``: ReDial movie id → name (with year), genre, plot, director, writer, star."""
    p = existing(path, "ReDial movie table")
    raw = read_json(p)
    if not isinstance(raw, dict):
        raise CrsevalError(
            "top level is not an object", file=p, expected="{movie id: {name, genre, …}}"
        )
    items = []
    for mid, rec in raw.items():
        if not isinstance(rec, dict) or not isinstance(rec.get("name"), str):
            raise CrsevalError(
                f"movie {mid}: missing name", file=p, field="name", expected="a string"
            )
        title = clean_title(rec["name"])
        year = YEAR.search(title)
        items.append(
            Item(
                str(mid),
                title,
                {
                    "year": int(year.group(1)) if year else None,
                    "genres": [
                        g.strip().lower() for g in _names(rec.get("genre"), p, mid, "genre")
                    ],
                    "plot": clean_text(str(rec.get("plot") or "")),
                    "director": _names(rec.get("director"), p, mid, "director"),
                    "writer": _names(rec.get("writer"), p, mid, "writer"),
                    "actor": _names(rec.get("star"), p, mid, "star"),
                    "imdb_id": rec.get("imdb_id"),
                },
            )
        )
    return ItemCatalog(dataset_info("redial-movies", p), items)
