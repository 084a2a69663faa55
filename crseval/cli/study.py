"""crseval study — run a study of your CRS with real people, and read what it collected."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from crseval.cli.options import FORMAT
from crseval.cli.output import Format, console, emit, err_console
from crseval.core.errors import CrsevalError

STUDY = typer.Argument(..., help="The study's TOML file (examples/study.toml).")
DB = typer.Option(
    None,
    "--db",
    help="Database URL (default: SQLite beside the study file; postgresql://USER@HOST/DB for several "
    "server processes or machines).",
)
SECRET = "CRSEVAL_STUDY_SECRET"


def _opened(study: Path, db: str | None):
    from crseval.study.config import load_study
    from crseval.study.db import check_study, connect

    config = load_study(study)
    engine = connect(db or config.default_db())
    check_study(engine, config.digest, config.version)
    return config, engine


def serve(
    study: Path = STUDY,
    port: int = typer.Option(8000, min=1, max=65535, help="Port to listen on."),
    host: str = typer.Option(
        "127.0.0.1", help="Address to listen on (0.0.0.0: every interface, behind your proxy)."
    ),
    db: Optional[str] = DB,
    workers: int = typer.Option(
        1, min=1, max=64, help="Server processes (more than one needs --db postgresql://…)."
    ),
    fmt: Format = FORMAT,
) -> None:
    """Start the study's web server for participants (Ctrl-C stops it; nothing acknowledged is lost)."""
    import uvicorn

    config, engine = _opened(study, db)
    if workers > 1 and engine.url.get_backend_name() == "sqlite":
        raise CrsevalError(
            "several server processes need a database server",
            field="--workers",
            fix="pass --db postgresql://USER@HOST/DB, or leave --workers at 1",
        )
    from crseval.study.crs_calls import Systems

    Systems(config).check()  # a misspelt target fails here, in one line
    base = f"http://{host}:{port}"
    where = {
        "study": config.name,
        "version": config.version,
        "config": config.digest,
        "url": base,
        "start": f"{base}/start?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
        "&SESSION_ID={{%SESSION_ID%}}",
        "monitor": f"{base}/monitor" if os.environ.get(SECRET) else f"off (set {SECRET})",
        "database": engine.url.render_as_string(hide_password=True),
    }
    if fmt is Format.json:  # one document, then the server runs
        emit(where, fmt)
    else:
        err_console.print(
            "\n".join(f"{k}: {v}" for k, v in where.items()), highlight=False, soft_wrap=True
        )
    os.environ["CRSEVAL_STUDY_FILE"] = str(study.resolve())
    os.environ["CRSEVAL_STUDY_DB"] = db or config.default_db()
    engine.dispose()
    uvicorn.run(
        "crseval.study.app:from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        access_log=False,  # a participant's URL holds their token
        log_level="warning",
        timeout_graceful_shutdown=5,
    )


def status(study: Path = STUDY, db: Optional[str] = DB, fmt: Format = FORMAT) -> None:
    """Where the study stands: the funnel, each arm against its target, each CRS's errors and latency."""
    import pandas as pd

    from crseval.study.status import study_status

    config, engine = _opened(study, db)
    s = study_status(engine, config)
    if fmt is Format.json:
        emit(s, fmt)
        return
    emit(pd.DataFrame([s["funnel"]]), fmt, title=f"Study {config.name}: participants")
    emit(pd.DataFrame(s["arms"]), fmt, title="Per arm (completed against the target)")
    if s["crs"]:
        emit(pd.DataFrame(s["crs"]), fmt, title="CRS replies")


def export(
    study: Path = STUDY,
    out: Path = typer.Option(..., "--out", help="Folder for the exported files."),
    db: Optional[str] = DB,
    fmt: Format = FORMAT,
) -> None:
    """Write dialogues, labels and votes in CRSArena-Dial's layout, ratings in CRS-Que's, a codebook and
    the config hash: `crseval criterion OUT`, `arena rank OUT/votes_study.csv`, `reliability analyze
    OUT/ratings.csv --preset crs-que` read them as they are."""
    from crseval.study.export import export as write

    config, engine = _opened(study, db)
    summary = write(engine, config, out)
    emit(summary, fmt)
    if fmt is Format.table:
        console.print(f"written to [bold]{out}[/bold]")


def pilot(
    study: Path = STUDY,
    users: int = typer.Option(10, min=1, max=1000, help="Simulated participants, all at once."),
    url: Optional[str] = typer.Option(
        None, help="A running study server (default: one started for the pilot on 127.0.0.1)."
    ),
    db: Optional[str] = typer.Option(
        None,
        "--db",
        help="The pilot server's database (default: a fresh SQLite file beside the study).",
    ),
    deadline: float = typer.Option(
        600, min=1, max=3600, help="Seconds after which the pilot stops."
    ),
    seed: int = typer.Option(0, help="Seed of the simulated participants."),
    fmt: Format = FORMAT,
) -> None:
    """crseval's simulated users take part as people would, all at once: a dry run before paying anyone,
    and the load test (what the server adds to each message, apart from the CRS)."""
    from crseval.cli.progress import progress_bars
    from crseval.study.config import load_study
    from crseval.study.pilot import run_pilot

    config = load_study(study)
    with _server(study, config, url, db) as base, progress_bars() as bars:
        result = run_pilot(
            config,
            base,
            users,
            seed=seed,
            deadline_s=deadline,
            progress=bars("pilot participants", users),
        )
    summary = result.summary(config)
    if url is None or db is not None:  # the database is at hand: every acknowledged message in it?
        from crseval.study.db import connect

        engine = connect(db or _pilot_db(config))
        summary["messages lost"] = result.lost(engine)
        engine.dispose()
    emit(summary, fmt)
    if summary["did not finish"] or summary.get("messages lost"):
        raise typer.Exit(1)


def _pilot_db(config) -> str:
    return f"sqlite:///{Path(config.folder) / f'{config.name}-pilot.sqlite'}"


@contextmanager
def _server(study: Path, config, url: str | None, db: str | None) -> Iterator[str]:
    """``url``, or a server this command starts on a free port of 127.0.0.1 (a fresh SQLite database
    beside the study unless ``db``), stopped when the block ends."""
    if url:
        yield url.rstrip("/")
        return
    if db is None:  # a fresh one each pilot
        db = _pilot_db(config)
        path = Path(db.removeprefix("sqlite:///"))
        for p in path.parent.glob(path.name + "*"):
            p.unlink()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "crseval.cli.main",
        "study",
        "serve",
        str(study),
        "--port",
        str(port),
        "--db",
        db,
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(base, proc)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_for(base: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    import httpx

    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        if proc.poll() is not None:
            last = (proc.stderr.read() if proc.stderr else "").strip().splitlines()
            raise CrsevalError(
                f"the pilot's server did not start: {last[-1] if last else 'no output'}"
            )
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise CrsevalError(f"the pilot's server did not answer within {seconds:g} s")


def extend(app: typer.Typer) -> None:
    for command in (serve, status, export, pilot):
        app.command(command.__name__)(command)
