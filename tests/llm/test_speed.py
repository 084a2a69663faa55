"""This machine's seconds per LLM call, by model and kind: recorded when a client closes, read by the plan
before a command's first run."""

import pytest

from crseval.llm import ChatRequest, LLMClient, LLMConfig, make_client, speed
from crseval.llm.planning import planning
from crseval.llm.scripted import ScriptedBackend

SCRIPTED = {"backend": "scripted", "model": "scripted"}
KEY = speed.model_key(SCRIPTED)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path))


def test_the_record_is_a_running_mean_over_the_latest_calls(monkeypatch):
    speed.record(SCRIPTED, {"generation": [2.0, 4.0], "rating": [1.0]})
    assert speed.measured(KEY, "generation") == 3.0 and speed.measured(KEY, "rating") == 1.0
    speed.record(SCRIPTED, {"generation": [6.0]})
    assert speed.measured(KEY, "generation") == pytest.approx(4.0)  # (2 + 4 + 6) / 3
    monkeypatch.setattr(speed, "WINDOW", 2)
    speed.record(SCRIPTED, {"generation": [10.0]})
    assert speed.measured(KEY, "generation") == pytest.approx(7.0)  # the old mean weighs 1 call
    assert speed.measured(speed.model_key({**SCRIPTED, "engine": "other"}), "generation") is None
    speed.record(
        SCRIPTED, {"generation": [0.0], "nonsense": [3.0]}
    )  # nothing a speed can come from
    assert speed.measured(KEY, "generation") == pytest.approx(7.0)


class Timed(ScriptedBackend):
    measures_speed = True  # a model that takes time, as far as the record is concerned


def test_a_closing_client_records_what_its_model_answered_and_the_next_plan_reads_it():
    client = LLMClient(Timed(latency_s=0.05))
    client.complete(ChatRequest.chat("hello", max_tokens=8))
    client.close()
    assert speed.measured(KEY, "generation") == pytest.approx(0.05, abs=0.04)
    LLMClient(ScriptedBackend(latency_s=0.05)).close()  # a stand-in records nothing
    speed.record(SCRIPTED, {"generation": [9.95] * 199, "rating": [1.0]})
    with planning(None) as recorder:
        planned = make_client(LLMConfig(backend="scripted"))
        planned.complete(ChatRequest.chat("one", max_tokens=8))
        planned.complete(ChatRequest.chat("two", max_tokens=8))
        planned.rate(ChatRequest.chat("rate this"))
        planned.close()
    plan = recorder.finish("scripted")
    generation, rating = speed.measured(KEY, "generation"), speed.measured(KEY, "rating")
    assert generation == pytest.approx(9.9, abs=0.01)  # 199 new calls and one of the old mean's
    assert plan.new == 3 and plan.seconds_per_call == pytest.approx((2 * generation + rating) / 3)
    assert "measured in this machine's earlier runs" in plan.line()
