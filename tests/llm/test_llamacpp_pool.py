"""The embedded backend's shared model: every backend asking for the same model shares one worker process,
reference-counted, with waits told apart from work — on the model-less echo engine (the same worker
process, protocol, pool, timeouts and cancellation as llama.cpp's engines)."""

from __future__ import annotations

import threading
import time

import pytest

from crseval.core import cancel
from crseval.core.errors import BackendError, CrsevalError
from crseval.llm import ChatRequest, LLMClient
from crseval.llm import llamacpp
from crseval.llm.llamacpp import LlamaCppBackend, resolve_engine
from crseval.llm.usage import busy_seconds, usage_table


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setitem(llamacpp.ENGINE_MODULES, "echo", "crseval.testing")
    path = tmp_path / "m.gguf"
    path.write_bytes(b"not a model")
    return str(path)


def backend(model: str, **kw) -> LlamaCppBackend:
    return LlamaCppBackend(model, engine="echo", **kw)


def ask(b: LlamaCppBackend, text: str, timeout: float = 30):
    return b.complete(ChatRequest.chat(text), timeout)


def pid(b: LlamaCppBackend, text: str = "hi") -> str:
    return ask(b, text).text.split(":")[0]


def test_backends_of_one_model_share_one_worker_until_the_last_closes(model):
    crs, judge, other_ctx = backend(model), backend(model), backend(model, n_ctx=2048)
    try:
        assert crs._pool is judge._pool and crs._pool is not other_ctx._pool
        assert pid(crs) == pid(judge) != pid(other_ctx)
        (proc,) = crs._pool.processes
        crs.close()
        assert proc.poll() is None and pid(judge) == str(proc.pid)  # the judge still holds it
        with pytest.raises(BackendError, match="closed"):
            ask(crs, "hi")
        judge.close()
        assert proc.wait(timeout=10) is not None  # the last user closed: the process ends
        again = backend(model)
        assert pid(again) != str(proc.pid)  # a fresh pool, a fresh worker
        again.close()
    finally:
        for b in (crs, judge, other_ctx):
            b.close()  # closing twice releases once
    assert not llamacpp._POOLS


def test_a_request_waiting_for_the_shared_worker_is_told_apart_from_work(model):
    a, b = LLMClient(backend(model)), LLMClient(backend(model))
    a.role, b.role = "crs", "judge"
    try:
        pid(a.backend)  # the worker is up: what follows is waiting and working only
        threads = [
            threading.Thread(target=c.complete, args=(ChatRequest.chat("sleep 0.6"),))
            for c in (a, b)
        ]
        for t in threads:
            t.start()
            time.sleep(0.1)
        for t in threads:
            t.join()
        # the second call queued while the first worked: ~0.5 s wait, each worked ~0.6 s
        assert a.stats.wait_s < 0.2 and 0.35 < b.stats.wait_s < 0.8
        table = usage_table([a, b]).set_index("role")
        assert table.loc["crs", "busy_s"] == pytest.approx(0.6, abs=0.15)
        assert table.loc["judge", "busy_s"] == pytest.approx(0.6, abs=0.15)
        assert table.loc["judge", "llm_seconds"] > 1.0  # its call's wall time holds the wait
    finally:
        a.close()
        b.close()


def test_ctrl_c_during_a_shared_call_ends_it_at_once_and_every_user_stops(model):
    crs, judge = backend(model), backend(model)
    failed: list[float] = []

    def long_call() -> None:
        t0 = time.perf_counter()
        try:
            ask(crs, "sleep 30")
        except BackendError:
            failed.append(time.perf_counter() - t0)

    try:
        pid(crs)
        t = threading.Thread(target=long_call)
        t.start()
        time.sleep(0.3)
        cancel.cancel()
        t.join(timeout=5)
        assert failed and failed[0] < 3  # the shared worker was killed mid-call
        with pytest.raises(cancel.Interrupted):
            ask(judge, "hi")  # an interrupted run starts no model again, for any role
    finally:
        cancel.reset()
        crs.close()
        judge.close()


def test_a_failing_or_timed_out_part_leaves_the_shared_model_to_the_others(model):
    part, other = backend(model), backend(model)
    try:
        first = pid(other)
        with pytest.raises(BackendError, match="asked to fail") as refused:
            ask(part, "fail")
        assert (
            not refused.value.transient and pid(other) == first
        )  # an error reply keeps the worker
        with pytest.raises(BackendError, match="did not answer") as late:
            ask(part, "sleep 5", timeout=0.3)
        assert late.value.transient
        assert pid(other) != first  # its worker was killed; the next call starts another
    finally:
        part.close()
        other.close()


def test_one_worker_answers_as_many_requests_at_once_as_it_has_slots(model, monkeypatch):
    """With slots (the prebuilt engine's continuous batching) one process answers that many requests
    together; the backend's concurrency is workers × slots, a third request waits for a free slot, and the
    slots are part of the identity (batched answers are cached apart). The compiled engine has none."""
    b, one = backend(model, slots=2), backend(model)
    try:
        assert b.max_concurrency == 2 and b.identity()["slots"] == 2
        assert "slots" not in one.identity() and b._pool is not one._pool
        pid(b)  # loaded
        replies: list[str] = []
        threads = [
            threading.Thread(target=lambda: replies.append(ask(b, "sleep 0.6").text))
            for _ in range(3)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        assert len({r.split(":")[0] for r in replies}) == 1  # one process
        assert 1.1 < elapsed < 1.7  # two together, then the third: two rounds, not three
        assert len(b._pool.processes) == 1
    finally:
        b.close()
        one.close()
    monkeypatch.setattr(llamacpp.importlib.util, "find_spec", lambda name: object())
    with pytest.raises(CrsevalError, match="one sequence at a time") as e:
        LlamaCppBackend(model, engine="llama-cpp-python", slots=2)
    assert "slots = 1" in e.value.fix


def test_busy_seconds_is_the_length_of_the_union_of_intervals():
    assert busy_seconds([]) == 0
    assert busy_seconds([(0, 1), (0.5, 2), (3, 4), (3.2, 3.5)]) == pytest.approx(3.0)
    assert busy_seconds([(2, 3), (0, 1)]) == pytest.approx(2.0)


def test_an_unknown_or_missing_engine_is_one_clear_error(monkeypatch):
    with pytest.raises(CrsevalError, match="unknown llama.cpp engine 'vllm'"):
        resolve_engine("vllm")
    monkeypatch.setattr(llamacpp.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CrsevalError, match="needs a llama.cpp engine") as e:
        resolve_engine(None)
    assert "crseval[local]" in e.value.fix


def test_held_keeps_the_model_loaded_between_parts_and_closes_it_after(model):
    with llamacpp.held():
        first = backend(model)
        loaded = pid(first)
        first.close()  # a part ends: nobody uses the model now
        second = backend(model)
        assert pid(second) == loaded  # the next part finds it loaded
        second.close()
        (proc,) = llamacpp._POOLS[next(iter(llamacpp._POOLS))].processes
    assert proc.wait(timeout=10) is not None and not llamacpp._POOLS


def test_the_configs_engine_reaches_the_backend(model, monkeypatch):
    from crseval.llm import LLMConfig, make_backend

    # only the prebuilt engine "installed": naming the compiled one is refused, auto takes the prebuilt
    monkeypatch.setattr(
        llamacpp.importlib.util, "find_spec", lambda name: None if name == "llama_cpp" else object()
    )
    with pytest.raises(CrsevalError, match="needs llama-cpp-python"):
        make_backend(LLMConfig(model=model, engine="llama-cpp-python"))
    auto = make_backend(LLMConfig(model=model))
    assert auto.engine == "xllamacpp" and auto.supports_hidden_states
    assert auto.identity()["engine"] == "xllamacpp"
    auto.close()


def test_the_prompt_cache_is_asked_for_and_named_in_the_identity(model):
    """Off by default (every answer from its request alone); on, it is a model process of its own and part
    of the identity, so its order-dependent answers are cached and signed apart."""
    from crseval.llm import LLMConfig, make_backend

    assert LLMConfig().prompt_cache is False
    on, off = backend(model, prompt_cache=True), backend(model)
    try:
        assert on.identity()["prompt_cache"] is True and "prompt_cache" not in off.identity()
        assert on._pool is not off._pool and on._pool.config["prompt_cache"] is True
    finally:
        on.close(), off.close()
    made = make_backend(LLMConfig(model=model, engine="xllamacpp", prompt_cache=True))
    try:
        assert made.identity()["prompt_cache"] is True
    finally:
        made.close()
