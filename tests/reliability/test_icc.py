"""ICC(1), ICC(1,k): hand-computed ANOVA values, pingouin on balanced data, REML ≈ ANOVA."""

import numpy as np
import pandas as pd
import pytest

from crseval.reliability.icc import interpret, oneway_anova, oneway_reml


def test_balanced_by_hand():
    # items A: 1,3  B: 4,6  C: 2,2 → means 2,5,2, grand 3; SSB = 2·(1+4+1) = 12, MSB = 6;
    # SSW = 1+1+1+1+0+0 = 4, MSW = 4/3; n0 = 2 → σ²_u = (6 − 4/3)/2 = 7/3
    y, g = [1, 3, 4, 6, 2, 2], ["A", "A", "B", "B", "C", "C"]
    a = oneway_anova(y, g)
    assert a.var_item == pytest.approx(7 / 3)
    assert a.var_resid == pytest.approx(4 / 3)
    assert a.icc1 == pytest.approx(7 / 11)
    assert a.icc1k == pytest.approx(7 / 9)  # (MSB − MSW)/MSB
    r = oneway_reml(y, g)  # balanced + positive ANOVA estimate → REML equals ANOVA
    assert r.icc1 == pytest.approx(7 / 11, abs=1e-5)
    assert r.icc1k == pytest.approx(7 / 9, abs=1e-5)


def test_unbalanced_by_hand():
    # A: 1,3  B: 4,5,6  C: 2 → N = 6, grand 3.5; SSB = 13.5, MSB = 6.75; SSW = 4, MSW = 4/3
    # n0 = (6 − 14/6)/2 = 11/6 → σ²_u = (27/4 − 4/3)/(11/6) = 65/22; ICC(1) = 195/283; k = 18/11
    y, g = [1, 3, 4, 5, 6, 2], ["A", "A", "B", "B", "B", "C"]
    a = oneway_anova(y, g)
    assert a.var_item == pytest.approx(65 / 22)
    assert a.icc1 == pytest.approx(195 / 283)
    assert a.k == pytest.approx(18 / 11)
    assert a.icc1k == pytest.approx((65 / 22) / (65 / 22 + (4 / 3) / (18 / 11)))


def test_against_pingouin_on_balanced_data():
    pg = pytest.importorskip("pingouin")
    rng = np.random.default_rng(1)
    items, raters = 30, 4
    u = rng.normal(0, 1, items)
    df = pd.DataFrame(
        [(f"i{i}", f"r{j}", u[i] + rng.normal(0, 1)) for i in range(items) for j in range(raters)],
        columns=["item", "rater", "y"],
    )
    ref = pg.intraclass_corr(df, targets="item", raters="rater", ratings="y").set_index("Type")
    a = oneway_anova(df["y"], df["item"])
    assert a.icc1 == pytest.approx(ref.loc["ICC(1,1)", "ICC"], abs=1e-10)
    assert a.icc1k == pytest.approx(ref.loc["ICC(1,k)", "ICC"], abs=1e-10)
    assert oneway_reml(df["y"], df["item"]).icc1 == pytest.approx(
        ref.loc["ICC(1,1)", "ICC"], abs=1e-4
    )


def test_reml_is_zero_only_at_the_boundary_and_anova_can_be_negative():
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(40), 3)
    y = rng.normal(0, 1, len(g))  # no item effect at all
    a, r = oneway_anova(y, g), oneway_reml(y, g)
    assert r.var_item >= 0
    assert r.icc1 < 0.1
    if a.var_item < 0:
        assert r.var_item == 0.0


def test_reml_and_anova_agree_on_crs_que(shared):
    from crseval.data import load_dataset
    from crseval.reliability.qc import quality_control

    ratings = quality_control(
        load_dataset("crs-que", shared("judgments/crs_que/annotations.csv"))
    ).ratings
    for dim in ratings.dimensions:
        d = ratings.dimension(dim)
        a, r = oneway_anova(d["value"], d["item"]), oneway_reml(d["value"], d["item"])
        # the published 0.00 came from an optimiser stopping on the boundary; both estimators say 0.12–0.30
        assert 0.1 < r.icc1 < 0.35 and abs(a.icc1 - r.icc1) < 0.01, dim


@pytest.mark.parametrize(
    "v,band",
    [(0.2, "poor"), (0.5, "moderate"), (0.8, "good"), (0.95, "excellent"), (float("nan"), "n/a")],
)
def test_koo_li_bands(v, band):
    assert interpret(v) == band
