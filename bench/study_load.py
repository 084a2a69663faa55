"""The study server under load: `crseval study pilot` sends 50 simulated participants at once at one server
process on 127.0.0.1 with a CRS that answers in 0.5 s (crseval/testing/slow_crs.py), on SQLite and — where
CRSEVAL_TEST_POSTGRES names a server — PostgreSQL. What the server adds to each message (its round trip
less the CRS's own time, from the Server-Timing header) at p50 and p95; the aim is p95 ≤ 100 ms. Named
peer, measured in the same run on the same server right after the pilot: a bare endpoint's round trip
(GET /healthz, 200 requests), so the ratio says how far a message's handling sits above the ASGI stack's
floor on this machine.

usage: python bench/study_load.py [--users 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import _record as record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crseval.cli.study import _server  # noqa: E402
from crseval.study.config import load_study  # noqa: E402
from crseval.study.db import connect  # noqa: E402
from crseval.study.pilot import run_pilot  # noqa: E402
from crseval.testing.slow_crs import LOAD_STUDY  # noqa: E402


def floor_ms(base: str, n: int = 200) -> list[float]:
    import httpx

    out = []
    with httpx.Client(base_url=base) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            client.get("/healthz")
            out.append(1000 * (time.perf_counter() - t0))
    return out


def one(study: Path, db: str, users: int) -> dict:
    import numpy as np

    config = load_study(study)
    with _server(study, config, None, db) as base:
        pilot = run_pilot(config, base, users, deadline_s=600)
        floor = floor_ms(base)
    engine = connect(db)
    lost = pilot.lost(engine)
    engine.dispose()
    s = pilot.summary(config)
    p95_floor = float(np.percentile(floor, 95))
    return {
        "database": db.split(":")[0],
        "participants": users,
        "completed": s["completed"],
        "messages": s["messages acknowledged"],
        "lost": lost,
        "added p50 ms": s["server added p50 ms"],
        "added p95 ms": s["server added p95 ms"],
        "peer /healthz p95 ms": round(p95_floor, 1),
        "ratio p95 / peer": round(s["server added p95 ms"] / p95_floor, 1),
        "seconds": s["seconds"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--users", type=int, default=50)
    a = ap.parse_args()
    os.environ["CRSEVAL_SLOW_CRS_S"] = "0.5"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        study = Path(tmp) / "study.toml"
        study.write_text(LOAD_STUDY)
        rows.append(one(study, f"sqlite:///{Path(tmp) / 'load.sqlite'}", a.users))
        pg = os.environ.get("CRSEVAL_TEST_POSTGRES")
        if pg:
            import psycopg

            name = f"crseval_bench_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(pg, autocommit=True) as c:
                c.execute(f'CREATE DATABASE "{name}"')
            try:
                rows.append(one(study, pg.rsplit("/", 1)[0] + f"/{name}", a.users))
            finally:
                with psycopg.connect(pg, autocommit=True) as c:
                    c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for r in rows:
        print(r)
    record.table(
        "What the study server adds to a message, 50 participants at once (CRS: 0.5 s)",
        rows,
        "added: a message's round trip less the CRS's time; peer: GET /healthz on the same server",
    )
    return 0 if all(r["lost"] == 0 and r["completed"] == a.users for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(record.run(main))
