"""The OpenAI-compatible backend over real HTTP against the local fake server."""

import pytest

from crseval.core.errors import BackendError
from crseval.llm import ChatRequest, LLMClient, LLMConfig, SchedulerConfig, make_client
from crseval.testing.fake_server import FakeOpenAIServer
from crseval.llm.openai_compat import OpenAIBackend

FAST = SchedulerConfig(timeout_s=1.0, max_retries=6, backoff_base_s=0.01, backoff_max_s=0.05)


def test_roundtrip_payload_and_usage():
    with FakeOpenAIServer() as srv:
        b = OpenAIBackend("m1", srv.base_url, api_key_env=None)
        r = b.complete(ChatRequest.chat("hello", system="sys", max_tokens=7, stop=("\n",)), 5)
        body = srv.bodies[0]
        assert body["model"] == "m1"
        assert body["max_tokens"] == 7
        assert body["stop"] == ["\n"]
        assert body["seed"] == 0
        assert body["messages"] == [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "hello"},
        ]
        assert r.text.startswith("echo")
        assert r.prompt_tokens == 2
        b.complete(ChatRequest.chat("x", json_schema={"type": "object"}), 5)
        assert srv.bodies[1]["response_format"]["type"] == "json_schema"


def test_logprobs_give_probability_weighted_rating():
    with FakeOpenAIServer() as srv:
        client = LLMClient(OpenAIBackend("m", srv.base_url, api_key_env=None), None, FAST)
        res = client.rate(ChatRequest.chat("rate this"))
        assert res.method == "expected"
        assert 1 <= res.value <= 5
        assert sum(res.probs.values()) == pytest.approx(1)
        assert srv.bodies[0]["logprobs"] is True
        assert srv.bodies[0]["max_tokens"] == 1


def test_http_errors_map_to_transient_or_permanent():
    with FakeOpenAIServer(fault_rate=1.0, faults=("503",)) as srv:
        with pytest.raises(BackendError) as e:
            OpenAIBackend("m", srv.base_url, api_key_env=None).complete(ChatRequest.chat("x"), 2)
        assert e.value.transient
        assert e.value.status == 503
    with FakeOpenAIServer(fault_rate=1.0, faults=("truncated",)) as srv:
        with pytest.raises(BackendError, match="malformed") as e:
            OpenAIBackend("m", srv.base_url, api_key_env=None).complete(ChatRequest.chat("x"), 2)
        assert e.value.transient
    with pytest.raises(BackendError, match="cannot reach http://127.0.0.1:9") as e:
        OpenAIBackend("m", "http://127.0.0.1:9/v1", api_key_env=None).complete(
            ChatRequest.chat("x"), 1
        )
    assert e.value.transient


def test_timeout_is_enforced():
    with FakeOpenAIServer(fault_rate=1.0, faults=("timeout",), hang_s=2.0) as srv:
        with pytest.raises(BackendError, match="timed out"):
            OpenAIBackend("m", srv.base_url, api_key_env=None).complete(ChatRequest.chat("x"), 0.3)


def test_ratings_survive_30_percent_faults():
    with FakeOpenAIServer(fault_rate=0.3, seed=3, hang_s=1.5) as srv:
        client = LLMClient(
            OpenAIBackend("m", srv.base_url, api_key_env=None, max_concurrency=8), None, FAST
        )
        results = client.map(
            [ChatRequest.chat(f"dialogue {i}") for i in range(150)], lambda r: client.rate(r)
        )
        parsed = sum(r.value is not None for r in results)
        assert sum(srv.injected.values()) >= 30
        assert parsed / len(results) >= 0.99, (
            parsed,
            srv.injected,
            [r.error for r in results if r.value is None],
        )


def test_api_key_is_sent_but_never_cached(tmp_path, monkeypatch):
    secret = "sk-test-very-secret-123"
    monkeypatch.setenv("MY_KEY", secret)
    with FakeOpenAIServer() as srv:
        cfg = LLMConfig(backend="openai", model="m", base_url=srv.base_url, api_key_env="MY_KEY")
        client = make_client(cfg, tmp_path / "cache.sqlite")
        client.complete(ChatRequest.chat("hi"))
        client.close()
        assert srv.headers[0]["Authorization"] == f"Bearer {secret}"
    assert secret.encode() not in (tmp_path / "cache.sqlite").read_bytes()
    assert secret not in str(client.identity())
