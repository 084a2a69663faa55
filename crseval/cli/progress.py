"""Progress for long work: rich bars on a terminal; when stderr is not a terminal (a log file, CI, a pipe)
a plain line per task every few seconds and when it finishes, so progress stays visible."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from crseval.cli.output import err_console

LINE_EVERY_S = 5.0
# the bar's ETA comes from every unit done so far, not rich's default last 30 s: a unit that takes minutes
# (an LLM session) would leave it at -:--:-- for the whole run
SPEED_WINDOW_S = 24 * 3600.0
FIRST_LINE_S = 2.0  # a task still at its start after this long says so


@contextmanager
def progress_bars(
    clock: Callable[[], float] | None = None,
) -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    """Yields ``factory(description, total) -> advance(n)``; thread-safe; renders on stderr. The ETA is the
    time per unit so far times the units left, updated at every unit (``clock``: for tests)."""
    if not err_console.is_terminal:
        yield _lines
        return
    lock = threading.Lock()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
        speed_estimate_period=SPEED_WINDOW_S,
        get_time=clock,
    ) as prog:

        def factory(description: str, total: int) -> Callable[[int], None]:
            task = prog.add_task(description, total=total)
            prog.advance(task, 0)  # the start as a sample: the first unit done gives an ETA

            def advance(n: int = 1) -> None:
                with lock:
                    prog.advance(task, n)

            advance.remaining = lambda: prog.tasks[task].time_remaining  # type: ignore[attr-defined]
            return advance

        yield factory


def _lines(description: str, total: int) -> Callable[[int], None]:
    """Plain lines for a log: one when the task ends, one every LINE_EVERY_S while it runs — and one at
    FIRST_LINE_S when nothing has been said yet, so a slow first step (a model loading) is not silence."""
    now = time.monotonic()
    state = {"done": 0, "start": now, "last": now, "said": False}
    lock = threading.Lock()

    def say(now: float) -> None:
        state["last"], state["said"] = now, True
        elapsed = now - state["start"]
        left = elapsed / state["done"] * (total - state["done"]) if state["done"] else float("nan")
        eta = "" if state["done"] >= total or left != left else f", ~{left:.0f} s left"
        err_console.print(
            f"{description}: {state['done']}/{total} ({elapsed:.0f} s{eta})", highlight=False
        )

    def first() -> None:
        with lock:
            if not state["said"] and state["done"] < total:
                say(time.monotonic())

    timer = threading.Timer(FIRST_LINE_S, first)
    timer.daemon = True
    timer.start()

    def advance(n: int = 1) -> None:
        with lock:
            state["done"] += n
            now = time.monotonic()
            finished = state["done"] >= total
            if finished:
                timer.cancel()
            elif now - state["last"] < LINE_EVERY_S:
                return
            say(now)

    return advance
