"""The one resume implementation: work over keys, computed once, appended as it finishes, and every
record of the work returned in its order, computed now or read back."""

import pytest

from crseval.core import cancel
from crseval.core.keys import key
from crseval.runs.store import RunStore


def test_only_work_without_a_record_is_computed_and_the_done_count_first(tmp_path):
    records = RunStore(tmp_path / "run").stream("squares")
    calls, ticks = [], []

    def square(n: int) -> dict:
        calls.append(n)
        return {"n": n, "square": n * n}

    work = [(key("n", n), n) for n in range(4)]
    assert [r["key"] for r in records.run(work[:2], square, progress=ticks.append)] == [
        "n|0",
        "n|1",
    ]
    # every record of the work, in its order, whether read back or computed now
    assert [r["square"] for r in records.run(work[::-1], square, progress=ticks.append)] == [
        9,
        4,
        1,
        0,
    ]
    assert calls == [0, 1, 3, 2] and ticks == [1, 1, 2, 1, 1]
    assert [r["square"] for r in records.read()] == [0, 1, 9, 4]
    assert [r["key"] for r in records.read([key("n", 3), key("n", 1)])] == ["n|1", "n|3"]
    # a fresh store on the same directory resumes from the file, not from memory
    again = RunStore(tmp_path / "run").stream("squares")
    assert [r["square"] for r in again.run(work + [(key("n", 9), 9)], square)] == [0, 1, 4, 9, 81]
    assert calls[4:] == [9]


def test_an_interrupted_run_keeps_what_finished_and_resumes_with_the_rest(tmp_path):
    records = RunStore(tmp_path / "run").stream("s")
    work = [(key(i), i) for i in range(5)]

    def stop_at_three(i: int) -> dict:
        if i == 3:
            cancel.cancel()
        return {"i": i}

    try:
        with pytest.raises(cancel.Interrupted):
            records.run(work, stop_at_three)  # one by one: cancellation is checked between items
    finally:
        cancel.reset()
    assert [r["i"] for r in records.read()] == [0, 1, 2, 3]
    assert [r["i"] for r in records.run(work, lambda i: {"i": i})] == [0, 1, 2, 3, 4]


def test_a_mapper_runs_the_work_and_its_records_are_appended(tmp_path):
    records = RunStore(tmp_path / "run").stream("m")
    seen = []

    def mapper(items, fn, progress):  # what an LLM client's map does, in order
        for item in items:
            seen.append(item[0])
            fn(item)

    records.run([("a", 1), ("b", 2)], lambda v: {"v": v}, mapper=mapper)
    assert seen == ["a", "b"] and [r["v"] for r in records.read()] == [1, 2]
    assert (
        records.store.append("m", {"key": "a", "v": 9}) is False
    )  # a done key is never written twice


def test_a_threaded_mapper_waits_on_slow_work_at_once_and_keeps_every_record(tmp_path):
    """Issue #92: a CRS taking 3 s a reply was asked one context at a time."""
    import time

    from crseval.runs.stream import threads

    records = RunStore(tmp_path / "run").stream("slow")
    ticks = []

    def slow(v):
        time.sleep(0.2)
        return {"v": v}

    t0 = time.perf_counter()
    records.run([(str(i), i) for i in range(8)], slow, mapper=threads(4), progress=ticks.append)
    assert time.perf_counter() - t0 < 1.2  # 8 × 0.2 s one by one would take 1.6 s
    assert sorted(r["v"] for r in records.read()) == list(range(8)) and sum(ticks) == 8


def test_work_computed_in_batches_is_kept_as_it_comes_and_failures_are_retried(tmp_path):
    """Issue #95: the hand-written resume loops (simulated sessions, scoring in batches) are this one."""
    records = RunStore(tmp_path / "run").stream("b")
    batches, ticks = [], []

    def compute(pending, keep):
        batches.append([k for k, _ in pending])
        for k, v in reversed(pending):  # any order, as a pool of workers ends them
            keep({"key": k, "v": v, "error": v == 2})

    work = [(str(i), i) for i in range(5)]
    assert [r["v"] for r in records.run_batches(work, compute, size=2, progress=ticks.append)] == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert batches == [["0", "1"], ["2", "3"], ["4"]] and sum(ticks) == 5
    # only the failed record is computed again, the others read back
    out = records.run_batches(work, compute, retry=lambda r: r["error"])
    assert batches[3:] == [["2"]] and [r["key"] for r in out] == ["0", "1", "2", "3", "4"]
    assert "computing 1 record again" in (tmp_path / "run" / "run.log").read_text()
