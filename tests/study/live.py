"""A study server on a free port of 127.0.0.1, served by uvicorn in a thread of the test's process (a real
HTTP server for a browser or a pilot, stopped when the block ends)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def serving(config, db_url: str, secret: str | None = None) -> Iterator[str]:
    import uvicorn

    from crseval.study.db import check_study, connect
    from crseval.study.server import make_app

    engine = connect(db_url)
    check_study(engine, config.digest, config.version)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            make_app(config, engine, secret), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    stop = time.monotonic() + 30
    while not server.started and time.monotonic() < stop:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        engine.dispose()
