"""The server's app as uvicorn imports it in each worker process: the study file and database from the
environment `crseval study serve` sets (``CRSEVAL_STUDY_FILE``, ``CRSEVAL_STUDY_DB``), the monitor's
password from ``CRSEVAL_STUDY_SECRET`` (only ever read from the environment)."""

from __future__ import annotations

import os

from starlette.applications import Starlette


def from_environment() -> Starlette:
    from crseval.study.config import load_study
    from crseval.study.db import connect
    from crseval.study.server import make_app

    config = load_study(os.environ["CRSEVAL_STUDY_FILE"])
    engine = connect(os.environ.get("CRSEVAL_STUDY_DB") or config.default_db())
    return make_app(config, engine, os.environ.get("CRSEVAL_STUDY_SECRET") or None)
