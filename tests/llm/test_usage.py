"""The run's LLM usage per role, with cost where prices are given."""

import math

import pandas as pd

import crseval
from crseval.llm import LLMConfig, make_client
from crseval.llm.usage import collecting, usage_table


def test_clients_made_while_collecting_are_summed_per_role_with_their_cost():
    priced = LLMConfig(backend="scripted", price_input=0.15, price_output=0.60)
    with collecting() as clients:
        a = make_client(priced, role="judge")
        b = make_client(priced, role="judge")
        c = make_client(LLMConfig(backend="scripted"), role="crs")
    assert make_client(LLMConfig(backend="scripted")) not in clients  # made after the run
    a.stats.prompt_tokens, a.stats.completion_tokens, a.stats.requests = 1_500_000, 400_000, 3
    b.stats.prompt_tokens, b.stats.completion_tokens, b.stats.requests = 500_000, 600_000, 2
    c.stats.requests = 7
    table = usage_table(clients).set_index("role")
    assert table.loc["judge", "requests"] == 5 and table.loc["crs", "requests"] == 7
    assert math.isclose(table.loc["judge", "cost_usd"], 2.0 * 0.15 + 1.0 * 0.60)  # by hand
    assert math.isnan(table.loc["crs", "cost_usd"])  # no prices: no cost


def test_a_shift_run_reports_the_crs_the_simulated_user_and_the_judge(tmp_path):
    llm = {"backend": "scripted"}
    crseval.evaluate(
        "shift.run",
        models=[{"name": "llm-crs", "kind": "llm", "llm": llm}],
        sessions=2,
        turns=2,
        simulator={"drift": llm},
        judge={"aspects": ["coherence"], "judges": [{"name": "judge", "llm": llm}]},
        n_boot=100,
        out=tmp_path / "run",
    )
    usage = pd.read_csv(tmp_path / "run" / "tables" / "llm_usage.csv").set_index("role")
    assert set(usage.index) == {"crs", "simulated user", "judge"}
    assert usage.loc["judge", "requests"] == 2  # one coherence rating per session
    assert (usage["requests"] > 0).all()
    assert "LLM usage" in (tmp_path / "run" / "report.html").read_text()
