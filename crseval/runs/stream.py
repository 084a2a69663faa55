"""One stream of resumable records, and the one way work is resumed over it.

Work is a list of ``(key, item)``; a key is :func:`crseval.core.keys.key` of the item's identifying parts. :meth:`Stream.run`
computes only the items whose key has no record yet — through a mapper (an LLM client's ``map``, which
runs as many at once as the backend allows) or one after another, checking for cancellation between
items; :meth:`Stream.run_batches` for work computed many items at once — counts the ones already done on
the progress bar first, appends each result as a record the moment it exists, so an interruption loses
nothing finished, and returns every record of the work in its order, computed now or read back.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol, Sequence, TypeVar

from crseval.core.job import Advance
from crseval.core import cancel
from crseval.core.numbers import counted

T = TypeVar("T")
Work = Sequence[tuple[str, T]]
Mapper = Callable[[Sequence[Any], Callable[[Any], Any], "Advance | None"], Any]


def _one_by_one(items: Sequence[Any], fn: Callable[[Any], Any], progress: Advance | None) -> None:
    for item in items:
        cancel.check()
        fn(item)
        if progress:
            progress(1)


def threads(workers: int) -> Mapper:
    """A mapper that runs ``workers`` items at once in threads (a CRS that waits on the network or a
    model); an interruption drops the queued items instead of waiting for them."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    def mapper(items: Sequence[Any], fn: Callable[[Any], Any], progress: Advance | None) -> None:
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

    def drop_records(self, name: str, drop: Callable[[dict[str, Any]], bool]) -> int: ...

    def log(self, message: str) -> None: ...


class Stream:
    """The records ``records/<name>.jsonl`` of a run (:meth:`crseval.runs.store.RunStore.stream`)."""

    def __init__(self, store: Records, name: str) -> None:
        self.store, self.name = store, name

    def run(
        self,
        work: Work,
        compute: Callable[[T], dict[str, Any]],
        *,
        mapper: Mapper | None = None,
        progress: Advance | None = None,
        retry: Callable[[dict[str, Any]], bool] | None = None,
    ) -> list[dict[str, Any]]:
        """Every record of ``work``, in its order: those already recorded read back, the others computed
        (``compute(item)`` plus its ``key``) and appended the moment they exist. ``retry`` picks recorded
        records to compute again (a failure); the items already done advance ``progress`` at once."""
        pending = self._pending(work, retry, progress)
        fresh: list[dict[str, Any]] = []

        def one(pair: tuple[str, T]) -> None:
            fresh.append(self._keep({"key": pair[0], **compute(pair[1])}))

        if pending:
            (mapper or _one_by_one)(pending, one, progress)
        return self._in_order(work, pending, fresh)

    def run_batches(
        self,
        work: Work,
        compute: Callable[[list[tuple[str, T]], Callable[[dict[str, Any]], None]], None],
        *,
        size: int | None = None,
        progress: Advance | None = None,
        retry: Callable[[dict[str, Any]], bool] | None = None,
    ) -> list[dict[str, Any]]:
        """:meth:`run` for work computed many items at once: ``compute(pending, keep)`` gets the pending
        ``(key, item)`` pairs, ``size`` at a time (all at once without), and calls ``keep(record)`` (the
        record with its ``key``; from any thread) the moment each record exists."""
        pending = self._pending(work, retry, progress)
        fresh: list[dict[str, Any]] = []

        def keep(record: dict[str, Any]) -> None:
            fresh.append(self._keep(record))
            if progress:
                progress(1)

        step = size or max(1, len(pending))
        for start in range(0, len(pending), step):
            compute(pending[start : start + step], keep)
        return self._in_order(work, pending, fresh)

    def _keep(self, record: dict[str, Any]) -> dict[str, Any]:
        self.store.append(self.name, record)
        return record

    def _pending(
        self, work: Work, retry: Callable[[dict[str, Any]], bool] | None, progress: Advance | None
    ) -> list[tuple[str, T]]:
        """The work whose key has no record yet (after dropping the records ``retry`` picks), in order."""
        if retry is not None and (dropped := self.store.drop_records(self.name, retry)):
            self.store.log(
                f"{self.name}: computing {counted(dropped, 'record')} again (recorded as failed)"
            )
        done = self.store.done_keys(self.name)
        pending = list({k: (k, item) for k, item in work if k not in done}.values())
        if progress and len(pending) < len(work):
            progress(len(work) - len(pending))
        return pending

    def _in_order(
        self, work: Work, pending: list[tuple[str, T]], fresh: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The records of ``work``'s keys in its order: ``fresh`` ones, and the earlier ones read back only
        where some were done before (a shift run judges each session as it ends: reading the whole
        stream each time would not scale). A key without a record (cancelled) is left out."""
        keys = list(dict.fromkeys(k for k, _ in work))
        earlier = self.read(keys) if len(pending) < len(keys) else []
        by_key = {r["key"]: r for r in earlier + fresh}
        return [by_key[k] for k in keys if k in by_key]

    def read(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The stream's records in the order they were written — those of ``keys`` only, if given."""
        records = self.store.records(self.name)
        if keys is None:
            return records
        wanted = set(keys)
        return [r for r in records if r["key"] in wanted]
