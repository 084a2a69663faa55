"""The start page's visit counter on a new database, under concurrent first visits (SQLite and PostgreSQL)."""

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from crseval.study.db import connect, locks
from crseval.study.status import count_arrival


def test_concurrent_first_visits_are_all_counted_and_none_fails(db_url):
    """Twenty participants opening the link at once on a new database: before, two first visits on
    PostgreSQL could both find no counter row and both insert one, and the second got an error page."""
    engine = connect(db_url)
    try:
        together = threading.Barrier(20)

        def visit(_):
            together.wait()  # the first visits arrive at one moment
            count_arrival(engine)
            count_arrival(engine)

        with ThreadPoolExecutor(20) as pool:
            list(pool.map(visit, range(20)))
        with engine.connect() as c:
            n = c.execute(select(locks.c.n).where(locks.c.name == "arrived")).scalar()
        assert n == 40
    finally:
        engine.dispose()
