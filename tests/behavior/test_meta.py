"""Behavior metric meta-evaluation: preference kappa and mixtures."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from crseval.behavior.meta import (
    FRACTIONS,
    UNBANDED,
    metric_preferences,
    mix,
    preference_kappa,
    quality_curve,
)


def test_kappa_and_bootstrap_against_sklearn():
    rng = np.random.default_rng(0)
    human = rng.choice(["A", "B", "same"], 200)
    metric = np.where(rng.random(200) < 0.7, human, rng.choice(["A", "B", "same"], 200))
    k, lo, hi = preference_kappa(metric, human, n_boot=300)
    assert k == pytest.approx(cohen_kappa_score(human, metric, labels=["A", "B", "same"]))
    assert lo < k < hi
    assert list(metric_preferences([1, 0, 0.5], [0, 1, 0.5])) == ["A", "B", "same"]


def test_mixtures_take_exact_nested_shares():
    ideal = pd.DataFrame({"dialogue": ["d"] * 101, "turn": range(101), "response": ["good"] * 101})
    worst = ideal.assign(response="bad")
    shares = [mix(ideal, worst, p, seed=1)["response"].eq("bad") for p in FRACTIONS]
    assert [int(s.sum()) for s in shares] == [
        0,
        10,
        20,
        30,
        40,
        50,
        61,
        71,
        81,
        91,
        101,
    ]  # round(p × 101)
    assert all((small <= large).all() for small, large in zip(shares, shares[1:]))  # nested


def test_quality_curve_bands_and_statistics_by_hand():
    """Per mixture: explicit/implicit BA over counted turns, CRSLab BLEU/DIST, unscaled, with a band that
    holds the value; an ideal system equal to the human scores BLEU 1 and falls to 0 at 100 % worst."""
    rows = [(f"d{d}", t) for d in range(6) for t in range(4)]
    ideal = pd.DataFrame(
        [{"dialogue": d, "turn": t, "response": f"human says {d} {t} here"} for d, t in rows]
    )
    worst = ideal.assign(response="zzz")

    def turns(r):
        out = r.assign(human=ideal["response"].to_numpy(), system=r["response"])
        match = (out["system"] == out["human"]).astype(int)
        return out.assign(match=match, sentence_match=match, p_same=match * 0.8 + 0.1)

    curve = quality_curve(ideal, worst, turns, n_boot=50)
    v = curve.pivot(index="worst_share", columns="metric", values="value")
    assert v.loc[0.0, "explicit_ba_counted"] == 1 and v.loc[1.0, "explicit_ba_counted"] == 0
    assert v.loc[0.0, "implicit_ba"] == pytest.approx(0.9)
    assert v.loc[0.0, "crslab_bleu2"] == pytest.approx(1.0) and v.loc[1.0, "crslab_bleu2"] == 0.0
    assert v.loc[1.0, "crslab_dist2"] == pytest.approx(
        1 / 24
    )  # 24 × "zzz": one distinct character bigram
    assert (np.diff(v["crslab_bleu4"].to_numpy()) <= 1e-12).all()
    banded = curve[~curve["metric"].isin(UNBANDED)]
    assert (
        (banded["ci_lo"] <= banded["value"] + 1e-9) & (banded["value"] <= banded["ci_hi"] + 1e-9)
    ).all()
    assert (
        banded.loc[banded["worst_share"] == 0.5, "ci_hi"]
        .gt(banded.loc[banded["worst_share"] == 0.5, "ci_lo"])
        .any()
    )
    assert curve.loc[curve["metric"].isin(UNBANDED), "ci_lo"].isna().all()
