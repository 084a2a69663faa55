"""Where sessions run: a local thread pool (sessions concurrent, each sequential inside; the LLM
client's semaphore bounds real requests) or a Ray cluster. Both yield ``(task, record)`` as sessions
finish, so the caller appends each one to the run immediately."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Iterator, Sequence

from crseval.core.cancel import cancelled
from crseval.core.errors import CrsevalError
from crseval.simulation.session import run_session

Task = tuple[str, int]  # (model name, session index)


def run_local(
    config: dict[str, Any], tasks: Sequence[Task], workers: int, cache_path: str | None
) -> Iterator[tuple[Task, dict[str, Any]]]:
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        pending = {pool.submit(run_session, config, m, s, cache_path): (m, s) for m, s in tasks}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), fut.result()
    finally:  # interrupted: sessions not started are dropped, running ones stop at their next LLM call
        pool.shutdown(wait=not cancelled(), cancel_futures=True)


def run_ray(
    config: dict[str, Any],
    tasks: Sequence[Task],
    workers: int,
    cache_path: str | None,
    address: str | None = None,
) -> Iterator[tuple[Task, dict[str, Any]]]:
    """At most ``workers`` sessions in flight on the cluster (a local instance when ``address`` is None)."""
    try:
        import ray
    except ImportError:
        raise CrsevalError(
            "executor 'ray' needs Ray", field="executor", fix="pip install 'crseval[ray]'"
        ) from None
    if not ray.is_initialized():
        ray.init(
            address=address,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )
    remote = ray.remote(num_cpus=1)(run_session)
    queue, inflight = list(tasks), {}
    while queue or inflight:
        while queue and len(inflight) < workers:
            task = queue.pop(0)
            inflight[remote.remote(config, task[0], task[1], cache_path)] = task
        done, _ = ray.wait(list(inflight), num_returns=1)
        for ref in done:
            yield inflight.pop(ref), ray.get(ref)


def run_sessions(
    config: dict[str, Any],
    tasks: Sequence[Task],
    *,
    executor: str = "local",
    workers: int = 4,
    cache_path: str | None = None,
    address: str | None = None,
) -> Iterator[tuple[Task, dict[str, Any]]]:
    if executor == "ray":
        return run_ray(config, tasks, workers, cache_path, address)
    return run_local(config, tasks, workers, cache_path)
