"""TAS components on hand-made sessions with hand-computed values (see crseval/adaptation/tas.py)."""

import math

import numpy as np
import pytest

from crseval.adaptation.tas import TASParams, jaccard, score_session

C, H, X = "genre:comedy", "genre:horror", "actor:X"


def _g(user_user, cross, sys_sys, sys_user=None, n=4):
    """Build the (2n × 2n) cosine matrix from the pairs the formulas read."""
    g = np.eye(2 * n)
    for i, v in enumerate(user_user, 1):  # sim(u_{i-1}, u_i)
        g[i - 1, i] = g[i, i - 1] = v
    for i, v in enumerate(cross):  # sim(u_i, s_i)
        g[i, n + i] = g[n + i, i] = v
    for i, v in enumerate(sys_sys, 1):  # sim(s_{i-1}, s_i)
        g[n + i - 1, n + i] = g[n + i, n + i - 1] = v
    for (j, i), v in (sys_user or {}).items():  # sim(s_j, u_i)
        g[n + j, i] = g[i, n + j] = v
    return g


USER = [frozenset({C}), frozenset({C}), frozenset({H}), frozenset({H, X})]
G = _g([0.8, 0.1, 0.6], [0.5, 0.4, 0.3, 0.2], [0.9, 0.7, 0.2])


def test_recovered_after_two_turns_with_leakage():
    system = [frozenset({C}), frozenset({C}), frozenset({C}), frozenset({H, C})]
    r = score_session(G, USER, system, TASParams(), true_shifts=[2, 3])
    # one detected shift (turn 2: sim 0.1 < 0.55, Jaccard 0); turn 3 has sim 0.6 and Jaccard 0.5 → no shift
    assert r["shifts_detected"] == 1
    assert r["shifts_recovered"] == 1
    assert r["cross_coherence"] == pytest.approx(0.35)
    assert r["context_retention"] == pytest.approx(0.6)
    assert r["recovery_rate"] == 1.0
    assert r["avg_recovery_delay"] == 2.0  # s_2 not aligned, s_3 covers {horror}
    assert r["rd_norm"] == pytest.approx(1 - (2 - 1) / 5)  # 0.8
    assert r["topic_interference"] == pytest.approx(2 / 2)  # s_2 and s_3 both still mention comedy
    assert r["ti_norm"] == 0.0
    assert r["tas"] == pytest.approx((1 + 0.8 + 0 + 0.35 + 0.6) / 5)
    assert r["detection_precision"] == 1.0
    assert r["detection_recall"] == 0.5
    ev = r["events"]
    assert ev[2]["detected"]
    assert ev[2]["recovered_at"] == 3
    assert ev[2]["leaks"] == 2
    assert ev[3]["true_shift"]
    assert not ev[3]["detected"]


def test_never_recovered_gets_the_worst_delay_not_a_perfect_one():
    system = [frozenset({C})] * 4
    r = score_session(G, USER, system)
    assert r["recovery_rate"] == 0.0
    assert math.isnan(r["avg_recovery_delay"])
    assert r["rd_norm"] == 0.0
    assert r["tas"] == pytest.approx((0 + 0 + 0 + 0.35 + 0.6) / 5)


def test_no_shift_averages_the_coherence_components_only():
    g = _g([0.9, 0.9, 0.9], [0.5, 0.4, 0.3, 0.2], [0.9, 0.7, 0.2])
    same = [frozenset({C})] * 4
    r = score_session(g, same, same)
    assert r["shifts_detected"] == 0
    assert math.isnan(r["recovery_rate"])
    assert math.isnan(r["rd_norm"])
    assert r["tas_components"] == 2
    assert r["tas"] == pytest.approx((0.35 + 0.6) / 2)


def test_weights_and_thresholds_are_parameters():
    system = [frozenset({C}), frozenset({C}), frozenset({C}), frozenset({H, C})]
    only_cross = TASParams(weights={"cross_coherence": 1.0})
    assert score_session(G, USER, system, only_cross)["tas"] == pytest.approx(0.35)
    weighted = TASParams(weights={"recovery_rate": 3.0, "cross_coherence": 1.0})
    assert score_session(G, USER, system, weighted)["tas"] == pytest.approx((3 * 1 + 0.35) / 4)
    # a stricter similarity threshold also flags turn 3 (sim 0.6 < 0.7)
    strict = score_session(G, USER, system, TASParams(sim_topic_shift=0.7))
    assert strict["shifts_detected"] == 2
    assert "sim" in TASParams().signature()
    assert "w=recovery_rate:1" in TASParams().signature()


def test_topicless_shift_is_aligned_by_text_similarity():
    user = [frozenset({C}), frozenset()]
    g = _g([0.1], [0.2, 0.3], [0.5], {(1, 1): 0.7}, n=2)
    r = score_session(g, user, [frozenset({C}), frozenset()])
    assert r["shifts_detected"] == 1
    assert r["avg_recovery_delay"] == 1.0  # sim(s_1, u_1) = 0.7 ≥ 0.65
    g_low = _g([0.1], [0.2, 0.3], [0.5], {(1, 1): 0.6}, n=2)
    assert score_session(g_low, user, [frozenset({C}), frozenset()])["shifts_recovered"] == 0


def test_recovery_search_stops_at_the_next_shift():
    # shifts at turns 1 and 2; the reply that would recover turn 1's topics only comes at turn 2
    user = [frozenset({C}), frozenset({H}), frozenset({X})]
    g = _g([0.0, 0.0], [0.1, 0.1, 0.1], [0.1, 0.1], n=3)
    r = score_session(g, user, [frozenset({C}), frozenset(), frozenset({H, X})])
    assert r["shifts_detected"] == 2
    assert r["events"][1]["recovered_at"] is None
    assert r["events"][2]["recovered_at"] == 2


def test_jaccard_of_two_empty_sets_is_one():
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(frozenset({C}), frozenset()) == 0.0
    assert jaccard(frozenset({C, H}), frozenset({H})) == 0.5
