import pytest

from crseval.llm.planning import Plan


def test_two_plans_add_up_with_the_time_per_call_that_gives_their_total():
    a = Plan(
        calls=10, cached=2, by_model={"llamacpp/q": 10}, seconds_per_call=8.0, load_seconds=15.0
    )
    b = Plan(
        calls=5,
        cached=1,
        by_model={"llamacpp/q": 5},
        seconds_per_call=4.0,
        measured=True,
        load_seconds=15.0,
    )
    both = a + b
    assert (both.calls, both.cached, both.new) == (15, 3, 12)
    assert both.by_model == {"llamacpp/q": 15}
    assert both.new * both.seconds_per_call == pytest.approx(8 * 8 + 4 * 4)
    # one model for both parts of a command: loaded once (the demo planned 4 loads for its 4 parts)
    assert both.measured and both.load_seconds == 15
    assert "+ 15 s loading the model" in both.line()
    assert "about 95 s" in both.line()  # 80 s of calls + 15 s of loading
    other = Plan(calls=2, by_model={"openai/m": 2}, seconds_per_call=1.0, load_seconds=5.0)
    assert (a + other).load_seconds == 20  # two models: each loads


def test_a_plan_with_nothing_to_make_says_so():
    assert "no LLM calls" in Plan().line()
    assert (Plan() + Plan()).calls == 0
