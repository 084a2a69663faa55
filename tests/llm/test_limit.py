"""Adaptive concurrency: halve on an overloaded server, grow back on success, within bounds."""

from crseval.llm import ChatRequest, LLMClient, SchedulerConfig
from crseval.llm.limit import AdaptiveLimit
from crseval.llm.openai_compat import OpenAIBackend
from crseval.testing.fake_server import FakeOpenAIServer


def test_the_limit_halves_on_overload_and_grows_back_one_at_a_time():
    limit = AdaptiveLimit(8, low=2)
    limit.overloaded()
    assert limit.limit == 4
    limit.overloaded(), limit.overloaded()
    assert limit.limit == 2  # never below the configured floor
    for _ in range(2):
        limit.succeeded()
    assert limit.limit == 3  # after as many successes in a row as the limit allows
    for _ in range(3):
        limit.succeeded()
    assert limit.limit == 4
    for _ in range(100):
        limit.succeeded()
    assert limit.limit == 8  # never above the configured concurrency


def test_a_rate_limited_server_gets_fewer_requests_at_once_and_every_answer_arrives():
    """The server answers 429 beyond 3 requests in flight; the client, started at 12, lowers its limit
    and every one of 60 requests is answered (retries honour Retry-After)."""
    with FakeOpenAIServer(latency_s=0.03, reject_over=3) as srv:
        backend = OpenAIBackend("m", srv.base_url, api_key_env=None, max_concurrency=12)
        client = LLMClient(backend, None, SchedulerConfig(max_retries=20, backoff_base_s=0.01))
        try:
            reqs = [ChatRequest.chat(f"question {i}") for i in range(60)]
            results = client.map(reqs, client.try_complete)
        finally:
            client.close()
    assert all(r.ok for r in results)
    assert srv.rejected > 0 and client._slots.lowered > 0
    assert client.stats.retries == srv.rejected  # each rejection retried once, none lost
    assert client._slots.limit < 12


def test_the_llm_configs_bounds_reach_the_client():
    from crseval.llm import LLMConfig, make_client

    client = make_client(LLMConfig(backend="scripted", concurrency=8, min_concurrency=3))
    for _ in range(3):
        client._slots.overloaded()
    assert (client._slots.high, client._slots.limit) == (8, 3)  # halved to the configured floor
    client.close()
