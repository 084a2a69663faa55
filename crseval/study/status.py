"""Where a study stands, for `crseval study status` and the monitor page: the funnel (arrived, consented,
chatting, completed, failed a check, CRS failed, abandoned), each arm against its target, and each CRS's
replies, errors and latency."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from crseval.study.config import StudyConfig
from crseval.study.db import locks, participants, turns, writing
from crseval.study.flow import arm_counts


def study_status(engine: Engine, config: StudyConfig) -> dict[str, Any]:
    now = time.time()
    with engine.connect() as c:
        people = [dict(r) for r in c.execute(select(participants)).mappings()]
        arrived = c.execute(select(locks.c.n).where(locks.c.name == "arrived")).scalar() or 0
        query = select(turns.c.system, turns.c.latency_ms, turns.c.error)
        replies = [dict(r) for r in c.execute(query.where(turns.c.speaker == "system")).mappings()]
        going = arm_counts(c, config, now)
    return {
        "study": config.name,
        "digest": config.digest,
        "funnel": _funnel(config, people, int(arrived), now),
        "arms": _arms(config, people, going),
        "crs": _crs(replies),
    }


def _funnel(config: StudyConfig, people: list[dict], arrived: int, now: float) -> dict[str, int]:
    fresh = now - 60 * config.limits.stale_minutes
    active = [p for p in people if p["outcome"] is None]
    ended = {
        o: sum(p["outcome"] == o for p in people)
        for o in ("completed", "failed_check", "crs_failed")
    }
    return {
        "arrived": max(arrived, len(people)),  # visits of the start page, scanners included
        "consented": len(people),
        "in progress": sum(p["active"] >= fresh for p in active),
        "completed": ended["completed"],
        "failed a check": ended["failed_check"],
        "CRS failed": ended["crs_failed"],
        "abandoned": sum(p["active"] < fresh for p in active),
    }


def _arms(config: StudyConfig, people: list[dict], going: dict[str, int]) -> list[dict[str, Any]]:
    out = []
    for arm in ("|".join(a) for a in config.arms):
        mine = [p for p in people if p["arm"] == arm]
        done = sum(p["outcome"] == "completed" for p in mine)
        out.append(
            {
                "arm": arm.replace("|", " then "),
                "target": config.arm_target(),
                "completed": done,
                "in progress": going.get(arm, 0) - done,
                "failed": sum(p["outcome"] in ("failed_check", "crs_failed") for p in mine),
            }
        )
    return out


def _crs(replies: list[dict]) -> list[dict[str, Any]]:
    out = []
    for system in sorted({r["system"] for r in replies}):
        mine = [r for r in replies if r["system"] == system]
        ok = [r["latency_ms"] for r in mine if r["error"] is None and r["latency_ms"] is not None]
        out.append(
            {
                "system": system,
                "replies": len(mine),
                "errors": sum(r["error"] is not None for r in mine),
                "latency p50 ms": round(float(np.percentile(ok, 50))) if ok else None,
                "latency p95 ms": round(float(np.percentile(ok, 95))) if ok else None,
            }
        )
    return out


def count_arrival(engine: Engine) -> None:
    """One more visit of the start page (a link scanner's included: it enrols no one)."""
    with writing(engine) as c:  # its row is made with the database (db.connect)
        c.execute(update(locks).where(locks.c.name == "arrived").values(n=locks.c.n + 1))
