"""Rich progress bars for long work (thread-safe advance callbacks)."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from crseval.cli.output import err_console


@contextmanager
def progress_bars() -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    """Yields ``factory(description, total) -> advance(n)``; bars render on stderr."""
    lock = threading.Lock()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=err_console, transient=False) as prog:
        def factory(description: str, total: int) -> Callable[[int], None]:
            task = prog.add_task(description, total=total)

            def advance(n: int = 1) -> None:
                with lock:
                    prog.advance(task, n)
            return advance
        yield factory
