import krippendorff
import numpy as np
import pandas as pd
import pytest

from crseval.core.types import Ratings
from crseval.reliability import power
from crseval.reliability.alpha import _matrix, alpha
from crseval.reliability.qc import quality_control
from crseval.reliability.structure import structure


def test_alpha_matches_the_krippendorff_package():
    rng = np.random.default_rng(0)
    items, raters = np.repeat(np.arange(40), 4), np.tile(np.arange(6), 40)[:160]
    truth = rng.integers(1, 6, 40)
    y = np.clip(truth[items] + rng.integers(-1, 2, 160), 1, 5)
    m = np.full((6, 40), np.nan)
    for v, i, r in zip(y, items, raters):
        m[r, i] = v
    assert np.allclose(_matrix(y, items, raters), m, equal_nan=True)
    ref_ord = krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    ref_int = krippendorff.alpha(reliability_data=m, level_of_measurement="interval")
    est, lo, hi = alpha(y, items, raters, "ordinal", n_boot=200, seed=1)
    assert est == pytest.approx(ref_ord) and lo < est < hi
    assert alpha(y, items, raters, "interval")[0] == pytest.approx(ref_int)


def test_walter_formula_hand_checked_points():
    # k = 2, ρ0 = 0.4, ρ1 = 0.6, α = 0.05 (one-sided), power 0.8:
    # θ0 = 2/3, θ1 = 1.5, C0 = (1 + 4/3)/(1 + 3) = 7/12; z = 1.6449 + 0.8416 = 2.4865
    # n = 1 + 2·2·z² / (1 · ln(7/12)²) = 1 + 24.730/0.29050 = 86.13
    assert power.items_needed(0.6, 2, rho0=0.4) == pytest.approx(86.13, abs=0.05)
    # k = 5, ρ0 = 0, ρ1 = 0.2: C0 = 1/(1 + 5·0.25) = 0.4444; n = 1 + 10·6.1826/(4·0.6576) = 24.5
    assert power.items_needed(0.2, 5) == pytest.approx(24.5, abs=0.05)
    n = power.items_needed(0.3, 4)
    assert power.min_detectable_icc(int(np.ceil(n)), 4) <= 0.3
    assert power.power_icc(int(round(n)), 4, 0.3) == pytest.approx(0.8, abs=0.02)


def test_ci_width_and_correlation_power():
    # Bonett (2002): ρ = 0.5, k = 2, w = 0.2 → n = 8·1.96²·0.25·2.25/(2·0.04) + 1 = 217.1
    assert power.items_for_ci_width(0.5, 2, 0.2) == pytest.approx(217.1, abs=0.2)
    assert power.ci_width(0.5, 218, 2) == pytest.approx(0.2, abs=0.002)
    # Fisher z: r = 0.3, α = 0.05, power 0.8 → n = (2.8016/atanh 0.3)² + 3 = 84.93 (the textbook 85)
    assert power.items_for_correlation(0.3) == pytest.approx(84.93, abs=0.02)
    assert power.power_correlation(0.3, 85) == pytest.approx(0.80, abs=0.01)


def _ratings(rows, extra=None):
    return Ratings(pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]), (1, 5), extra=extra)


def test_structure_groups_dimensions_that_carry_one_signal():
    rng = np.random.default_rng(3)
    q, s = rng.normal(0, 1, 50), rng.normal(0, 1, 50)
    rows = []
    for i in range(50):
        for dim, base in [("a1", q), ("a2", q), ("a3", q), ("b1", s), ("b2", s)]:
            rows.append((f"i{i}", "r", dim, float(np.clip(np.round(3 + base[i] + rng.normal(0, 0.2)), 1, 5))))
    st = structure(_ratings(rows), n_clusters=2)
    c = st.clusters
    assert c["a1"] == c["a2"] == c["a3"] != c["b1"] == c["b2"]
    assert st.correlations.loc["a1", "a2"] > 0.8 and abs(st.correlations.loc["a1", "b1"]) < 0.4


def test_qc_flags_constructed_raters_and_excludes_gold():
    rows, extra = [], []
    for rater, gold_score, seconds in [("good1", 1, 120), ("good2", 2, 90), ("lazy", 5, 100), ("fast", 1, 8)]:
        rows.append(("GOLD", rater, "q", gold_score))
        extra.append({"item": "GOLD", "rater": rater, "gold": True, "time": seconds, "attn": "pass"})
        for i in range(3):
            rows.append((f"d{i}", rater, "q", 3))
            extra.append({"item": f"d{i}", "rater": rater, "gold": False, "time": seconds,
                          "attn": "fail" if rater == "good2" and i == 0 else "pass"})
    rep = quality_control(_ratings(rows, pd.DataFrame(extra)), time_col="time", min_seconds=30, attention_col="attn")
    reasons = rep.flagged.groupby("rater")["reason"].apply(" | ".join)
    assert set(reasons.index) == {"lazy", "fast", "good2"}
    assert "gold" in reasons["lazy"] and "median time" in reasons["fast"] and "attention" in reasons["good2"]
    assert "GOLD" not in rep.ratings.items and rep.counts["gold items excluded"] == 1
    assert rep.counts["raters retained"] == 4  # flagged, not dropped, unless asked
    dropped = quality_control(_ratings(rows, pd.DataFrame(extra)), time_col="time", min_seconds=30,
                              attention_col="attn", drop_flagged=True)
    assert dropped.ratings.raters == ["good1"]
