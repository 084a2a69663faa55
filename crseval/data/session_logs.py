"""Read session logs to score without generating anything (``crseval shift score LOGS``).

Accepted, strict in structure and lenient in names:

- the widely used layout, one JSON file per session (or a list of them in one file):
  ``{"model_name": …, "true_genre": …, "conversation": [{"speaker": …, "text": …, "constraints": …}]}``,
  optionally with the study's own judge scores ``"judge_scores": {aspect: score}``;
  speakers such as User/Seeker/Human and System/Assistant/Recommender/Bot/CRS are recognised;
- crseval's own session records (``records/results.jsonl`` of a run directory, or any JSONL of them);
- one turn per line, a CSV or JSONL (:mod:`crseval.data.turn_table`: dialogue, turn, speaker, text, and
  optionally system and the recommended items);
- the CRS arena's dialogues (CRSArena-Dial, ``[{"conversation ID": "{crs}_{user}", "agent": {"id"},
  "conversation": [{"participant", "utterance"}]}]``): the model is the agent, the session the user — so
  the two dialogues of a battle share a session id.

Consecutive utterances of one speaker are joined; a leading system greeting and a trailing unanswered
user utterance are dropped — each such repair is reported in the notes, never silent. Anything else
malformed raises a CrsevalError naming the file, the line (JSONL) and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from crseval.core.keys import key
from crseval.core.errors import CrsevalError
from crseval.core.order import in_key_order
from crseval.core.types import Role
from crseval.data.io import read_json, read_jsonl
from crseval.data.turn_table import is_turn_table, read_turn_table


RUN_RECORDS = "results"  # the stream of a shift run's session records: records/results.jsonl


def import_logs(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """(session records, notes about repairs)."""
    p = Path(path)
    if not p.exists():
        raise CrsevalError(
            "no such file or directory", file=p, fix="pass a log file, a folder of logs or a run"
        )
    if p.is_dir():
        own = p / "records" / f"{RUN_RECORDS}.jsonl"
        if own.exists():
            return _own(own), []
        files = sorted(p.glob("*.json")) + sorted(p.glob("*.jsonl"))
        files += [f for f in sorted(p.glob("*.csv")) if is_turn_table(f)]
        if not files:
            raise CrsevalError(
                "no session logs in this folder",
                file=p,
                expected=".json / .jsonl sessions, or one turn per line (.csv / .jsonl: "
                "dialogue, turn, speaker, text)",
            )
    else:
        files = [p]
    sessions, notes = [], []
    for f in files:
        if is_turn_table(f):  # one turn per line (crseval.data.turn_table)
            for obj in read_turn_table(f):
                rec, n = _layout(obj, f, obj["dialogue"])
                sessions.append(rec)
                notes += n
            continue
        if f.suffix == ".jsonl":
            sessions += _own(f)
            continue
        raw = read_json(f)
        items = raw if isinstance(raw, list) else [raw]
        for k, obj in enumerate(items):
            sid = f.stem if len(items) == 1 else f"{f.stem}#{k}"
            if isinstance(obj, dict) and "conversation ID" in obj:
                obj, sid = _arena(obj)
                if not _replied(obj["conversation"]):
                    notes.append(f"{f.name} {sid}: no reply from {obj['model_name']}, left out")
                    continue
            rec, n = _layout(obj, f, sid)
            sessions.append(rec)
            notes += n
    keys = [s["key"] for s in sessions]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise CrsevalError(
            f"duplicated session {dup[0]!r}", file=p, fix="every (model, session) must appear once"
        )
    if not sessions:
        raise CrsevalError("no sessions found", file=p)
    return sessions, notes


def _own(path: Path) -> list[dict[str, Any]]:
    return own_sessions(read_jsonl(path), path)


def own_sessions(lines: Iterable[tuple[int, Any]], path: Path) -> list[dict[str, Any]]:
    """crseval's session records ((line, record) pairs of ``path``), checked, in key order."""
    out = []
    for line, rec in lines:
        if (
            not isinstance(rec, dict)
            or not isinstance(rec.get("turns"), list)
            or not rec["turns"]
            or "model" not in rec
        ):
            raise CrsevalError(
                "not a crseval session record (or a session without turns)",
                file=path,
                line=line,
                field="turns",
                expected='{"key", "model", "session", "turns": [{"user", "system", …}]}',
            )
        for t in rec["turns"]:
            if (
                not isinstance(t, dict)
                or not isinstance(t.get("user"), str)
                or not isinstance(t.get("system"), str)
            ):
                raise CrsevalError(
                    "turn without user/system text", file=path, line=line, field="turns"
                )
        out.append(
            {
                k: rec[k]
                for k in (
                    "key",
                    "model",
                    "session",
                    "user",
                    "seed",
                    "true_genre",
                    "start_genre",
                    "turns",
                    "errors",
                )
                if k in rec
            }
        )
    return in_key_order(out)  # sessions finish in any order; the file keeps theirs


def _arena(obj: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A CRSArena-Dial conversation in the widely used layout, and its user's id as the session."""
    cid = str(obj["conversation ID"])
    agent = obj.get("agent") if isinstance(obj.get("agent"), dict) else {}
    model = str(agent.get("id") or cid.rsplit("_", 1)[0])
    turns = obj.get("conversation")
    convo = [
        {"speaker": u.get("participant"), "text": u.get("utterance")} if isinstance(u, dict) else u
        for u in (turns if isinstance(turns, list) else [])
    ]
    return {"model_name": model, "conversation": convo}, cid.removeprefix(f"{model}_")


def _replied(convo: list) -> bool:
    """Whether a recommender speaks (an unreadable speaker counts as one: :func:`_layout` names it)."""
    for u in convo:
        try:
            if Role.parse(str(u.get("speaker"))).is_recommender:
                return True
        except (CrsevalError, AttributeError):
            return True
    return False


def _merged(convo: list, f: Path, sid: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The utterances as alternating user/system entries (consecutive ones of a speaker joined, a leading
    system and a trailing unanswered user utterance dropped), with a note for each repair."""
    merged: list[dict[str, Any]] = []
    notes = []
    for i, u in enumerate(convo):
        if not isinstance(u, dict) or not isinstance(u.get("text"), str):
            raise CrsevalError(
                f"session {sid}: utterance {i} has no text",
                file=f,
                field=f"conversation[{i}].text",
                expected="a string",
            )
        try:
            role = (
                "system"
                if Role.parse(str(u.get("speaker", u.get("role", "")))).is_recommender
                else "user"
            )
        except CrsevalError as e:
            raise CrsevalError(
                f"session {sid}: utterance {i}: {e.message}",
                file=f,
                field=f"conversation[{i}].speaker",
                expected=e.expected,
            ) from None
        cons = u.get("constraints")
        items = u.get("items") if isinstance(u.get("items"), list) else []
        if merged and merged[-1]["speaker"] == role:
            merged[-1]["text"] += " " + u["text"]
            merged[-1]["items"] += items
            merged[-1]["constraints"] = (
                cons if isinstance(cons, dict) else merged[-1]["constraints"]
            )
            notes.append(f"{f.name} {sid}: joined consecutive {role} utterances at {i}")
        else:
            merged.append(
                {
                    "speaker": role,
                    "text": u["text"],
                    "constraints": cons if isinstance(cons, dict) else None,
                    "items": list(items),
                }
            )
    if merged[0]["speaker"] == "system":
        merged.pop(0)
        notes.append(f"{f.name} {sid}: dropped a leading system utterance")
    if merged and merged[-1]["speaker"] == "user":
        merged.pop()
        notes.append(f"{f.name} {sid}: dropped a trailing unanswered user utterance")
    if not merged:
        raise CrsevalError(f"session {sid}: no user/system exchange", file=f, field="conversation")
    return merged, notes


def _judge_scores(judged: Any, f: Path, sid: str) -> dict[str, float]:
    if not isinstance(judged, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in judged.values()
    ):
        raise CrsevalError(
            f"session {sid}: judge scores must be numbers by aspect",
            file=f,
            field="judge_scores",
            expected='{"coherence": 4, …}',
        )
    return {str(k).strip().lower(): float(v) for k, v in judged.items()}


def _layout(obj: Any, f: Path, sid: str) -> tuple[dict[str, Any], list[str]]:
    if not isinstance(obj, dict):
        raise CrsevalError(
            f"session {sid}: is {type(obj).__name__}",
            file=f,
            expected='{"model_name", "true_genre", "conversation": [...]}',
        )
    model = obj.get("model_name", obj.get("model"))
    if not isinstance(model, str) or not model.strip():
        raise CrsevalError(
            f"session {sid}: missing model name", file=f, field="model_name", expected="a string"
        )
    convo = obj.get("conversation")
    if not isinstance(convo, list) or not convo:
        raise CrsevalError(
            f"session {sid}: no conversation",
            file=f,
            field="conversation",
            expected="a non-empty list of {speaker, text}",
        )
    merged, notes = _merged(convo, f, sid)
    turns = [
        {
            "turn": k,
            "user": merged[2 * k]["text"],
            "system": merged[2 * k + 1]["text"],
            "constraints": merged[2 * k + 1]["constraints"] or merged[2 * k]["constraints"],
            "truth": None,
            **({"items": merged[2 * k + 1]["items"]} if merged[2 * k + 1]["items"] else {}),
        }
        for k in range(len(merged) // 2)
    ]
    genre = obj.get("true_genre")
    record = {
        "key": key(model.strip(), sid),
        "model": model.strip(),
        "session": sid,
        "true_genre": genre if isinstance(genre, str) else None,
        "turns": turns,
        "errors": [],
    }
    if obj.get("judge_scores") is not None:
        record.update(judge_scores=_judge_scores(obj["judge_scores"], f, sid), source=f.name)
    return record, notes


def dumps_layout(record: dict[str, Any]) -> str:
    """A session record in the widely used layout (what :func:`import_logs` reads back)."""
    convo = []
    for t in record["turns"]:
        convo.append({"speaker": "User", "text": t["user"], "constraints": None})
        convo.append(
            {"speaker": "System", "text": t["system"], "constraints": t.get("constraints")}
        )
    return json.dumps(
        {
            "model_name": record["model"],
            "true_genre": record.get("true_genre"),
            "conversation": convo,
        },
        ensure_ascii=False,
    )
