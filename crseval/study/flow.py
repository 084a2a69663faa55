"""What a participant does, as database changes: enrol (or resume by the platform's id), be assigned an
arm, chat turn by turn, answer, vote, finish with an outcome. Each function runs inside the caller's
transaction; the server commits before it answers. Nothing here renders or parses a request."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from crseval.study.config import Item, StudyConfig
from crseval.study.db import answers, assigned, participants, take_assignment_lock, turns, votes


class Refused(Exception):
    """A request the study does not carry out: ``status`` and a line for the participant."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


# ---- enrolment and assignment ------------------------------------------------------------------------
def enrol(c: Connection, config: StudyConfig, ids: dict[str, str], now: float) -> dict[str, Any]:
    """The participant of ``ids`` (the platform's PROLIFIC_PID, STUDY_ID, SESSION_ID; each may be empty):
    the one already enrolled with that PROLIFIC_PID (a reload, a second device: they resume), else a new
    one with the arm that most needs people."""
    pid = ids.get("pid") or None
    if pid:
        found = c.execute(select(participants).where(participants.c.pid == pid)).mappings().first()
        if found:
            return dict(found)
    take_assignment_lock(c)
    arm, first = choose_arm(c, config, now)
    row = {
        "token": secrets.token_urlsafe(24),
        "csrf": secrets.token_urlsafe(24),
        "pid": pid,
        "platform_study": ids.get("study") or None,
        "platform_session": ids.get("session") or None,
        "arm": arm,
        "stage": first,
        "failures": 0,
        "created": now,
        "active": now,
    }
    try:
        new_id = c.execute(insert(participants).values(**row)).inserted_primary_key[0]
    except IntegrityError:  # the same PROLIFIC_PID enrolled by another process a moment ago
        raise Refused(409, "You are already taking part: open your link again to go on.") from None
    if config.mode == "rate":
        _assign_dialogues(c, config, new_id)
    return {**row, "id": new_id}


def arm_counts(c: Connection, config: StudyConfig, now: float) -> dict[str, int]:
    """Per arm: participants who completed, and those still going who were active recently (a chat in
    progress holds its arm's place; an abandoned one frees it after ``limits.stale_minutes``)."""
    fresh = now - 60 * config.limits.stale_minutes
    q = (
        select(participants.c.arm, func.count())
        .where(
            or_(
                participants.c.outcome == "completed",
                and_(participants.c.outcome.is_(None), participants.c.active >= fresh),
            )
        )
        .group_by(participants.c.arm)
    )
    counts = dict(c.execute(q).all())
    return {"|".join(a): int(counts.get("|".join(a), 0)) for a in config.arms}


def choose_arm(c: Connection, config: StudyConfig, now: float) -> tuple[str, str]:
    """(arm, first stage): the arm with the fewest participants (ties: declaration order); once every arm
    met its target, still the fewest — a study past its target takes more, balanced."""
    if config.mode == "rate":
        return "rate", "rate:0"
    counts = arm_counts(c, config, now)
    arm = min(counts, key=lambda a: (counts[a] >= config.arm_target(), counts[a]))
    return arm, "chat:0"


def _assign_dialogues(c: Connection, config: StudyConfig, participant: int) -> None:
    """A rater's dialogues: those with the fewest raters (done or going) below ``raters``, a gold one
    among them where the study has gold dialogues; none twice."""
    from crseval.study.dialogues import dialogue_ids

    ids = dialogue_ids(config)
    taken = dict(
        c.execute(select(assigned.c.dialogue, func.count()).group_by(assigned.c.dialogue)).all()
    )
    open_ = [d for d in ids if taken.get(d, 0) < config.raters and d not in config.gold]
    open_.sort(key=lambda d: (taken.get(d, 0), ids.index(d)))
    chosen = open_[: config.per_rater - bool(config.gold)]
    if config.gold:
        golds = list(config.gold)
        gold = min(golds, key=lambda d: (taken.get(d, 0), golds.index(d)))
        chosen.insert(len(chosen) // 2, gold)
    if not chosen:
        raise Refused(410, "Thank you — every dialogue has all its ratings; the study is full.")
    c.execute(
        insert(assigned),
        [{"participant": participant, "dialogue": d, "position": i} for i, d in enumerate(chosen)],
    )


# ---- reading a participant ---------------------------------------------------------------------------
def by_token(c: Connection, token: str) -> dict[str, Any]:
    row = c.execute(select(participants).where(participants.c.token == token)).mappings().first()
    if row is None:
        raise Refused(404, "This link is not valid. Open the link the study platform gave you.")
    return dict(row)


def chat_systems(p: dict[str, Any]) -> list[str]:
    return p["arm"].split("|")


def stage(p: dict[str, Any]) -> tuple[str, int]:
    """``("chat", 0)``, ``("questions", 1)``, ``("vote", 0)``, ``("rate", 2)``, ``("done", 0)``."""
    kind, _, n = p["stage"].partition(":")
    return kind, int(n or 0)


def history(c: Connection, participant: int, chat: int) -> list[dict[str, Any]]:
    q = (
        select(turns)
        .where(turns.c.participant == participant, turns.c.chat == chat)
        .order_by(turns.c.id)
    )
    return [dict(r) for r in c.execute(q).mappings()]


def rated_dialogues(c: Connection, participant: int) -> list[str]:
    q = select(assigned.c.dialogue).where(assigned.c.participant == participant)
    return list(c.execute(q.order_by(assigned.c.position)).scalars())


# ---- changing a participant --------------------------------------------------------------------------
def move(c: Connection, p: dict[str, Any], to: str, now: float, **more: Any) -> None:
    c.execute(
        update(participants)
        .where(participants.c.id == p["id"])
        .values(stage=to, active=now, **more)
    )
    p.update(stage=to, active=now, **more)


def finish(c: Connection, p: dict[str, Any], outcome: str, now: float) -> None:
    move(c, p, "done", now, outcome=outcome, finished=now)


@dataclass(frozen=True)
class Said:
    """One turn to write: in which chat, who said it, what; the form that sent it (a user's), the CRS's
    latency and error (a system's)."""

    chat: int
    speaker: str  # user | system
    text: str
    form: str | None = None
    latency_ms: float | None = None
    error: str | None = None


def add_turn(c: Connection, p: dict[str, Any], said: Said, now: float) -> bool:
    """Write one turn (False: this form was already sent — a double submit — and nothing is written)."""
    try:
        with c.begin_nested():
            c.execute(
                insert(turns).values(
                    participant=p["id"],
                    system=chat_systems(p)[said.chat],
                    at=now,
                    **{
                        k: getattr(said, k)
                        for k in ("chat", "speaker", "text", "form", "latency_ms", "error")
                    },
                )
            )
    except IntegrityError:
        return False
    c.execute(update(participants).where(participants.c.id == p["id"]).values(active=now))
    return True


def crs_answered(c: Connection, p: dict[str, Any], failed: bool) -> None:
    """Count the CRS's failures in a row; past the study's limit the participant is done (crs_failed)."""
    n = p["failures"] + 1 if failed else 0
    c.execute(update(participants).where(participants.c.id == p["id"]).values(failures=n))
    p["failures"] = n


def after_chat(c: Connection, p: dict[str, Any], chat: int, now: float) -> None:
    move(c, p, f"questions:{chat}", now)


def save_answers(
    c: Connection,
    config: StudyConfig,
    p: dict[str, Any],
    unit: str,
    form: dict[str, str],
    now: float,
) -> bool:
    """Check and store one questionnaire (False: an attention check failed — stored too, and the
    participant is done). A missing required answer or a value out of range is refused, nothing written."""
    items = config.questionnaire.all_items()
    values = {i.id: _answer(i, form.get(f"q_{i.id}", "")) for i in items}
    rows = [
        {"participant": p["id"], "unit": unit, "item": k, "value": v, "at": now}
        for k, v in values.items()
        if v != ""
    ]
    try:
        with c.begin_nested():
            c.execute(insert(answers), rows)
    except IntegrityError:
        raise Refused(409, "These answers were already sent.") from None
    return all(values[i.id] == str(i.expect) for i in items if i.expect is not None)


def _answer(item: Item, raw: str) -> str:
    raw = raw.strip()
    if not raw:
        if item.required:
            raise Refused(400, f"Please answer every question (missing: “{item.text}”).")
        return ""
    if item.kind == "likert" and raw not in {"1", "2", "3", "4", "5"}:
        raise Refused(400, "An answer was not one of the choices.")
    if item.kind == "label" and raw not in ("satisfied", "frustrated"):
        raise Refused(400, "An answer was not one of the choices.")
    if len(raw) > 5000:
        raise Refused(413, "An answer is too long.")
    return raw


def save_vote(c: Connection, p: dict[str, Any], vote: str, feedback: str, now: float) -> None:
    a, b = chat_systems(p)
    choice = {"A": a, "B": b, "tie": "tie"}.get(vote)
    if choice is None:
        raise Refused(400, "Please choose A, B or a tie.")
    if len(feedback) > 5000:
        raise Refused(413, "The comment is too long.")
    try:
        with c.begin_nested():
            c.execute(
                insert(votes).values(
                    participant=p["id"],
                    system_a=a,
                    system_b=b,
                    vote=choice,
                    feedback=feedback.strip(),
                    at=now,
                )
            )
    except IntegrityError:
        raise Refused(409, "Your vote was already recorded.") from None


def next_after_questions(config: StudyConfig, chat: int) -> str | None:
    """The stage after a chat's questionnaire, or None: the participant has completed the study."""
    if config.pairs and chat == 0:
        return "chat:1"
    if config.pairs:
        return "vote"
    return None


def now() -> float:
    return time.time()
