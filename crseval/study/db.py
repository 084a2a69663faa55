"""The study's database: SQLite in the study's folder by default (nothing to start), or any URL SQLAlchemy
takes (``postgresql://…`` for several server processes or machines). Every request that changes something
commits before it is answered, so an acknowledged turn, answer or vote survives a ``kill -9``: SQLite runs
in WAL mode with ``synchronous = NORMAL`` (a commit is in the operating system's hands before it is
answered: a killed server loses nothing; only a power cut could lose the last commits, which a
PostgreSQL server configured for it would not), one writing thread at a time (:func:`writing`).

One row per participant (their stage, arm and outcome), per turn (as it happens, with the CRS's latency
and error), per answer and per vote. Balanced assignment takes a write lock on one row of ``locks`` first,
so two processes never give the last place of an arm twice."""

from __future__ import annotations

import threading
import time
import weakref
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, OperationalError

from crseval.core.errors import CrsevalError

metadata = MetaData()

meta = Table("meta", metadata, Column("key", String(40), primary_key=True), Column("value", Text))
locks = Table(
    "locks",
    metadata,
    Column("name", String(40), primary_key=True),
    Column("n", Integer, nullable=False, default=0),
)
participants = Table(
    "participants",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("token", String(64), unique=True, nullable=False),
    Column("csrf", String(64), nullable=False),
    Column(
        "pid", String(64), unique=True
    ),  # the platform's participant id (PROLIFIC_PID); may be none
    Column("platform_study", String(64)),
    Column("platform_session", String(64)),
    Column("arm", String(200), nullable=False),  # a system, or "a|b" in the order shown
    Column("stage", String(40), nullable=False),  # chat:N, questions:N, vote, rate:N, done
    Column("outcome", String(20)),  # completed, failed_check, crs_failed (None while going)
    Column("failures", Integer, nullable=False, default=0),  # CRS failures in a row
    Column("created", Float, nullable=False),
    Column("active", Float, nullable=False),  # the last request that changed something
    Column("finished", Float),
)
turns = Table(
    "turns",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("participant", Integer, ForeignKey("participants.id"), nullable=False, index=True),
    Column("chat", Integer, nullable=False),
    Column("speaker", String(10), nullable=False),  # user | system
    Column("system", String(64), nullable=False),
    Column("text", Text, nullable=False),
    Column("latency_ms", Float),  # the CRS's time to answer (system turns)
    Column("error", Text),  # why the CRS gave no answer
    Column("form", String(40)),  # the form that sent it: a double submit writes once
    Column("at", Float, nullable=False),
    UniqueConstraint("participant", "form", name="one_turn_per_form"),
)
answers = Table(
    "answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("participant", Integer, ForeignKey("participants.id"), nullable=False, index=True),
    Column("unit", String(200), nullable=False),  # chat:N, or the rated dialogue's id
    Column("item", String(40), nullable=False),
    Column("value", Text, nullable=False),
    Column("at", Float, nullable=False),
    UniqueConstraint("participant", "unit", "item", name="one_answer_per_item"),
)
votes = Table(
    "votes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("participant", Integer, ForeignKey("participants.id"), nullable=False, unique=True),
    Column("system_a", String(64), nullable=False),
    Column("system_b", String(64), nullable=False),
    Column("vote", String(64), nullable=False),  # a system's name or "tie"
    Column("feedback", Text, nullable=False, default=""),
    Column("at", Float, nullable=False),
)
assigned = Table(  # rate mode: the dialogues a rater is given, in order
    "assigned",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("participant", Integer, ForeignKey("participants.id"), nullable=False, index=True),
    Column("dialogue", String(200), nullable=False),
    Column("position", Integer, nullable=False),
    UniqueConstraint("participant", "dialogue", name="none_rates_twice"),
)


def connect(url: str) -> Engine:
    """An engine for ``url`` with the tables created (an existing study's are used as they are)."""
    if "://" not in url:
        raise CrsevalError(
            f"not a database URL: {url!r}",
            field="--db",
            expected="sqlite:///PATH or postgresql://USER@HOST/DB",
        )
    if url.startswith(
        "postgresql://"
    ):  # the installed driver (psycopg 3), not SQLAlchemy's default
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    sqlite = url.startswith("sqlite")
    if sqlite and url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30} if sqlite else {},
            # connections stay open (one made per request was the tail under load); no ping before each
            # use (it doubled a message's median time with 50 participants): after a database restart the
            # first request on a dropped connection fails once, and the pool replaces it
            pool_pre_ping=False,
            pool_size=40,
            max_overflow=20,
        )
    except (ArgumentError, ImportError, ValueError) as e:
        raise CrsevalError(f"cannot use database {_shown(url)}: {e}", field="--db") from None
    if sqlite:

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi, _record):  # noqa: ANN001
            cur = dbapi.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives the process's death
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    try:
        metadata.create_all(engine)
        with engine.begin() as c:  # the rows that requests only update: none races to insert one
            for name in ("assign", "arrived"):
                if c.execute(select(locks.c.name).where(locks.c.name == name)).first() is None:
                    c.execute(insert(locks).values(name=name, n=0))
    except OperationalError as e:
        raise CrsevalError(
            f"cannot open database {_shown(url)}: {str(e.orig).splitlines()[0]}",
            field="--db",
            fix="start the database server, or leave --db out for SQLite in the study's folder",
        ) from None
    return engine


def _shown(url: str) -> str:
    """A URL without its password (it never reaches a message or a log)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(unreadable URL)"


def check_study(engine: Engine, digest: str, version: str) -> None:
    """The database belongs to this study: its first config hash is recorded; a changed config under the
    same version is refused (answers of two questionnaires would mix)."""
    with engine.begin() as c:
        rows = dict(c.execute(select(meta.c.key, meta.c.value)).all())
        if not rows:
            c.execute(
                insert(meta),
                [
                    {"key": "digest", "value": digest},
                    {"key": "version", "value": version},
                    {"key": "created", "value": str(time.time())},
                ],
            )
            return
    if rows.get("digest") != digest and rows.get("version") == version:
        raise CrsevalError(
            f"this database holds version {version} of the study with another configuration "
            f"({rows.get('digest')} → {digest})",
            field="version",
            fix="raise the study's version for a changed questionnaire or systems, or use another --db",
        )
    if rows.get("digest") != digest:
        with engine.begin() as c:
            c.execute(update(meta).where(meta.c.key == "digest").values(value=digest))
            c.execute(update(meta).where(meta.c.key == "version").values(value=version))


_WRITERS: "weakref.WeakKeyDictionary[Engine, threading.Lock]" = weakref.WeakKeyDictionary()


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A transaction that writes, committed when the block ends. On SQLite one thread of the process
    writes at a time (SQLite takes one writer anyway, and a thread waiting in its busy handler sleeps up
    to 100 ms a try: the tail of every request under load); PostgreSQL's own locks need no help."""
    lock = _WRITERS.get(engine)
    if lock is None and engine.url.get_backend_name() == "sqlite":
        lock = _WRITERS.setdefault(engine, threading.Lock())
    with lock or nullcontext(), engine.begin() as c:
        yield c


def take_assignment_lock(c: Connection) -> None:
    """Serialise assignment across threads and processes until the transaction ends (a row write lock)."""
    c.execute(update(locks).where(locks.c.name == "assign").values(n=locks.c.n + 1))
