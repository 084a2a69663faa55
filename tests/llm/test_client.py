"""The LLM layer with the scripted backend: cache, retries with backoff, failure records,
structured output with repair, ratings."""

import json
import threading
import time

import pytest

from crseval.core.errors import BackendError
from crseval.llm import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    ResponseCache,
    SchedulerConfig,
)
from crseval.llm.client import parse_json, parse_rating
from crseval.llm.scripted import ScriptedBackend

FAST = SchedulerConfig(timeout_s=5, max_retries=3, backoff_base_s=0.001, backoff_max_s=0.01)


def test_cache_hit_costs_nothing_and_is_counted(tmp_path):
    backend = ScriptedBackend()
    client = LLMClient(backend, ResponseCache(tmp_path / "c.sqlite"), FAST)
    req = ChatRequest.chat("hello", max_tokens=10)
    a, b = client.complete(req), client.complete(req)
    assert a.text == b.text
    assert b.cached
    assert not a.cached
    assert len(backend.calls) == 1
    assert client.stats.cache_hits == 1
    assert client.stats.cache_misses == 1
    # a different sampling parameter is a different request
    client.complete(ChatRequest.chat("hello", max_tokens=10, temperature=0.7))
    assert len(backend.calls) == 2
    # the cache persists across clients (processes)
    client2 = LLMClient(ScriptedBackend(), ResponseCache(tmp_path / "c.sqlite"), FAST)
    assert client2.complete(req).cached


def test_cache_key_ignores_nothing_that_shapes_output():
    ident = {"backend": "x", "model": "m"}
    base = ChatRequest.chat("q")
    keys = {
        base.cache_key(ident),
        ChatRequest.chat("q", seed=1).cache_key(ident),
        ChatRequest.chat("q", stop=("\n",)).cache_key(ident),
        ChatRequest.chat("q", choices=("1",)).cache_key(ident),
        base.cache_key({"backend": "x", "model": "m2"}),
        ChatRequest.chat("q", system="s").cache_key(ident),
    }
    assert len(keys) == 6


def test_transient_errors_are_retried_then_succeed():
    script = [BackendError("503", transient=True), BackendError("timeout", transient=True), "fine"]
    client = LLMClient(ScriptedBackend(script), None, FAST)
    res = client.try_complete(ChatRequest.chat("x"))
    assert res.ok
    assert res.response.text == "fine"
    assert res.attempts == 3
    assert client.stats.retries == 2


def test_retries_are_bounded_and_failure_is_recorded():
    backend = ScriptedBackend(lambda r: BackendError("always 500", transient=True))
    client = LLMClient(backend, None, FAST)
    res = client.try_complete(ChatRequest.chat("x"))
    assert not res.ok
    assert res.attempts == 4
    assert "always 500" in res.error
    assert client.stats.failures == 1
    assert len(backend.calls) == 4
    with pytest.raises(BackendError, match="after 4 attempt"):
        client.complete(ChatRequest.chat("x"))


def test_permanent_errors_are_not_retried():
    backend = ScriptedBackend(lambda r: BackendError("HTTP 400 bad request"))
    res = LLMClient(backend, None, FAST).try_complete(ChatRequest.chat("x"))
    assert not res.ok
    assert res.attempts == 1


def test_backoff_grows_exponentially_and_honours_retry_after():
    client = LLMClient(
        ScriptedBackend(), None, SchedulerConfig(backoff_base_s=1, backoff_max_s=100)
    )
    delays = [client._backoff(a, None) for a in range(4)]
    for a, d in enumerate(delays):
        assert 0.5 * 2**a <= d <= 2**a
    assert client._backoff(0, retry_after=7.0) == 7.0


def test_concurrency_limit_is_respected():
    """Counted, not timed: the most calls in flight at once is the backend's limit (never more, and the
    calls really overlap)."""
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def respond(req):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return "ok"

    client = LLMClient(ScriptedBackend(respond, max_concurrency=3), None, FAST)
    client.map([ChatRequest.chat(str(i)) for i in range(12)])
    assert peak[0] == 3


def test_structured_output_repairs_then_records_failure():
    schema = {
        "type": "object",
        "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5}},
        "required": ["rating"],
    }
    ok = LLMClient(
        ScriptedBackend(['{"rating": 9}', 'Sure! ```json\n{"rating": 4}\n```']), None, FAST
    )
    res = ok.structured(ChatRequest.chat("rate"), schema)
    assert res.ok
    assert res.value == {"rating": 4}
    assert ok.stats.repairs == 1
    backend = ScriptedBackend(["no idea", "still no idea"])
    bad = LLMClient(backend, None, FAST)
    res = bad.structured(ChatRequest.chat("rate"), schema)
    assert not res.ok
    assert res.value is None
    assert "unparseable" in res.error
    assert bad.stats.parse_failures == 1
    # the re-ask quotes the bad answer and the error
    assert backend.calls[1].messages[-2].content == "no idea"
    assert "not valid" in backend.calls[1].messages[-1].content


def test_rate_expected_value_from_choice_probabilities():
    probs = {"1": 0.1, "2": 0.1, "3": 0.2, "4": 0.3, "5": 0.3}
    client = LLMClient(ScriptedBackend([ChatResponse("4", choice_probs=probs)]), None, FAST)
    res = client.rate(ChatRequest.chat("rate"))
    assert res.method == "expected"
    assert res.value == pytest.approx(1 * 0.1 + 2 * 0.1 + 3 * 0.2 + 4 * 0.3 + 5 * 0.3)


def test_rate_falls_back_to_sampled_digit_with_repair():
    backend = ScriptedBackend(["I would say seven", "3"], choice_probs=False)
    client = LLMClient(backend, None, FAST)
    res = client.rate(ChatRequest.chat("rate"))
    assert res.method == "sampled"
    assert res.value == 3.0
    assert res.attempts == 2
    assert backend.calls[0].grammar == "root ::= [1-5]"


def test_rate_out_of_scale_is_an_error_not_a_default():
    client = LLMClient(ScriptedBackend(["9", "0", "banana"], choice_probs=False), None, FAST)
    res = client.rate(ChatRequest.chat("rate"))
    assert res.value is None
    assert "no rating" in res.error
    assert res.attempts == 3


def test_unusable_answers_are_not_cached(tmp_path):
    backend = ScriptedBackend(
        [ChatResponse("", choice_probs=None), ChatResponse("4", choice_probs={"4": 1.0})]
    )
    client = LLMClient(backend, ResponseCache(tmp_path / "c.sqlite"), FAST)
    res = client.rate(ChatRequest.chat("rate"))
    assert res.value == 4.0
    assert res.method == "expected"
    assert len(backend.calls) == 2
    again = LLMClient(ScriptedBackend([]), ResponseCache(tmp_path / "c.sqlite"), FAST).rate(
        ChatRequest.chat("rate")
    )
    assert again.value == 4.0  # the good answer came from the cache, the empty one was never stored


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 2}\n```', {"a": 2}),
        ('Here: {"a": 3} done', {"a": 3}),
    ],
)
def test_parse_json(text, expected):
    assert parse_json(text) == expected


@pytest.mark.parametrize(
    "text,value", [("4", 4), (" 5.", 5), ("Rating: 2", 2), ("4.5", None), ("6", None), ("", None)]
)
def test_parse_rating(text, value):
    assert parse_rating(text, (1, 5)) == value


def test_scripted_default_is_deterministic_and_schema_valid():
    import jsonschema

    schema = {
        "type": "object",
        "properties": {
            "t": {"type": "string", "maxLength": 5},
            "n": {"type": "integer", "minimum": 2},
        },
        "required": ["t", "n"],
    }
    a = ScriptedBackend().complete(ChatRequest.chat("x", json_schema=schema), 1)
    jsonschema.validate(json.loads(a.text), schema)
    r1 = ScriptedBackend().complete(ChatRequest.chat("x", choices=("1", "2")), 1)
    r2 = ScriptedBackend().complete(ChatRequest.chat("x", choices=("1", "2")), 1)
    assert r1.choice_probs == r2.choice_probs
    assert sum(r1.choice_probs.values()) == pytest.approx(1)


def test_hidden_states_come_with_the_rating_and_only_from_a_backend_that_gives_them():
    import numpy as np

    from crseval.llm.base import decode_states, encode_states

    states = np.arange(6, dtype=float).reshape(2, 3) / 7
    assert np.allclose(decode_states(encode_states(states)), states.astype("f4"))
    plain = ChatRequest.chat("rate: 'good' and 'bad'")
    assert "hidden_spans" not in plain.to_dict()  # every other request keeps its cache key
    asked = ChatRequest.chat("rate: 'good' and 'bad'", hidden_spans=((7, 13), (18, 23)))
    res = LLMClient(ScriptedBackend(), None, FAST).rate(asked)
    assert res.value is not None and decode_states(res.hidden).shape == (2, 17)
    blind = ScriptedBackend()
    blind.supports_hidden_states = False
    res = LLMClient(blind, None, FAST).rate(asked)
    assert res.value is None and "gives no hidden states" in res.error
