"""One stream of resumable records, and the one way work is resumed over it.

Work is a list of ``(key, item)``; a key is :func:`crseval.core.keys.key` of the item's identifying parts. :meth:`Stream.run`
computes only the items whose key has no record yet — through a mapper (an LLM client's ``map``, which
runs as many at once as the backend allows) or one after another, checking for cancellation between
items — counts the ones already done on the progress bar first, and appends each result as a record the
moment it exists, so an interruption loses nothing finished. :meth:`Stream.read` gives the records back.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol, Sequence, TypeVar

from crseval.core import cancel

T = TypeVar("T")
Work = Sequence[tuple[str, T]]
Progress = Callable[[int], None]
Mapper = Callable[[Sequence[Any], Callable[[Any], Any], "Progress | None"], Any]


def _one_by_one(items: Sequence[Any], fn: Callable[[Any], Any], progress: Progress | None) -> None:
    for item in items:
        cancel.check()
        fn(item)
        if progress:
            progress(1)


def threads(workers: int) -> Mapper:
    """A mapper that runs ``workers`` items at once in threads (a CRS that waits on the network or a
    model); an interruption drops the queued items instead of waiting for them."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    def mapper(items: Sequence[Any], fn: Callable[[Any], Any], progress: Progress | None) -> None:
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            for future in as_completed([pool.submit(fn, item) for item in items]):
                future.result()
                cancel.check()
                if progress:
                    progress(1)
        finally:
            pool.shutdown(wait=not cancel.cancelled(), cancel_futures=True)

    return mapper


class Records(Protocol):
    """Where a stream's records live (:class:`crseval.runs.store.RunStore`)."""

    def done_keys(self, name: str) -> set[str]: ...

    def append(self, name: str, record: dict[str, Any]) -> bool: ...

    def records(self, name: str) -> list[dict[str, Any]]: ...


class Stream:
    """The records ``records/<name>.jsonl`` of a run (:meth:`crseval.runs.store.RunStore.stream`)."""

    def __init__(self, store: Records, name: str) -> None:
        self.store, self.name = store, name

    def todo(self, work: Work) -> list[tuple[str, T]]:
        """The work whose key has no record yet, in the given order."""
        done = self.store.done_keys(self.name)
        return [(k, item) for k, item in work if k not in done]

    def run(
        self,
        work: Work,
        compute: Callable[[T], dict[str, Any]],
        *,
        mapper: Mapper | None = None,
        progress: Progress | None = None,
    ) -> list[dict[str, Any]]:
        """Compute and append the record (``compute(item)`` plus its ``key``) of every item not yet
        recorded; returns those records, in the order they finished. The items already done advance
        ``progress`` at once."""
        todo = self.todo(work)
        if progress and len(todo) < len(work):
            progress(len(work) - len(todo))
        fresh: list[dict[str, Any]] = []

        def one(pair: tuple[str, T]) -> None:
            record = {"key": pair[0], **compute(pair[1])}
            if self.store.append(self.name, record):
                fresh.append(record)

        if todo:
            (mapper or _one_by_one)(todo, one, progress)
        return fresh

    def read(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The stream's records in the order they were written — those of ``keys`` only, if given."""
        records = self.store.records(self.name)
        if keys is None:
            return records
        wanted = set(keys)
        return [r for r in records if r["key"] in wanted]
