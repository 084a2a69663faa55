"""ANOVA + Tukey HSD against statsmodels' OLS ANOVA, a hand-computed η² and hand-computed intervals; the
two-sample tests against scipy."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

from crseval.stats.tests import anova_tukey, paired_or_welch, wilcoxon_p


def test_anova_matches_statsmodels_and_eta_squared_by_hand():
    rng = np.random.default_rng(0)
    y = np.concatenate([rng.normal(m, 1, 12) for m in (0, 0.5, 1.5)])
    g = np.repeat(["a", "b", "c"], 12)
    res = anova_tukey(y, g)
    ref = anova_lm(ols("y ~ C(g)", data=pd.DataFrame({"y": y, "g": g})).fit(), typ=1)
    assert res.F == pytest.approx(ref["F"].iloc[0])
    assert res.p == pytest.approx(ref["PR(>F)"].iloc[0])
    assert (res.df_between, res.df_within) == (2, 33)
    assert res.eta_squared == pytest.approx(ref["sum_sq"].iloc[0] / ref["sum_sq"].sum())
    assert list(zip(res.tukey["group1"], res.tukey["group2"])) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    assert bool(res.tukey.set_index(["group1", "group2"]).loc[("a", "c"), "reject"])


def test_groups_too_small_or_without_variation_are_explained():
    res = anova_tukey([1.0, 1.0, 2.0, 2.0], ["a", "a", "b", "b"])
    assert np.isnan(res.F)
    assert "variation" in res.note
    one = anova_tukey([1.0, 2.0, 3.0], ["a", "a", "b"])  # b has one value: dropped, one group left
    assert np.isnan(one.p)


def test_paired_and_welch_match_scipy():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=20), rng.normal(0.3, 1, 20)
    name, t, p = paired_or_welch(a, b, paired=True)
    assert name == "paired t (n=20)"
    assert p == pytest.approx(stats.ttest_rel(a, b).pvalue)
    name, t, p = paired_or_welch(a, b[:15], paired=False)
    assert name == "Welch t"
    assert t == pytest.approx(stats.ttest_ind(a, b[:15], equal_var=False).statistic)


def test_no_t_without_two_values_or_a_difference(recwarn):
    """Nothing to test is a NaN, quietly: scipy warned on the terminal (SmallSampleWarning) when
    `compare` met a metric with one value, or the same run twice."""
    same = np.arange(5.0)
    assert np.isnan(paired_or_welch(same, same, paired=True)[2])
    assert np.isnan(paired_or_welch([1.0, np.nan], [2.0, 3.0], paired=True)[2])
    assert np.isnan(paired_or_welch([1.0], [2.0, 3.0], paired=False)[2])
    assert not recwarn.list


def test_a_difference_with_no_spread_is_what_scipy_gives_for_exact_values(recwarn):
    """Scores that differ by the same amount on every item (.2 + .01i against .7 + .01i: equal but for
    rounding) got t = -3.5e16 and scipy's precision-loss warning on the terminal from `compare`; scipy on
    exactly constant differences gives t = ±inf, p = 0, and so does crseval on both."""
    exact = stats.ttest_rel([1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
    recwarn.clear()  # scipy's own (a division by zero variance); crseval's calls below must add none
    assert paired_or_welch([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], paired=True)[1:] == (
        exact.statistic,
        exact.pvalue,
    )
    a, b = 0.2 + 0.01 * np.arange(6), 0.7 + 0.01 * np.arange(6)
    assert paired_or_welch(a, b, paired=True)[1:] == (-np.inf, 0.0)
    assert (
        paired_or_welch(np.full(4, 0.1 + 0.2), np.full(3, 0.3), paired=False)[2] != 0.0
    )  # no difference
    assert paired_or_welch(np.full(4, 0.3), np.full(3, 0.5), paired=False)[1:] == (-np.inf, 0.0)
    assert not recwarn.list


def test_tukey_intervals_equal_the_studentized_range_by_hand():
    """The intervals are the Tukey–Kramer ones by hand with scipy's studentized-range quantile, the second
    call (its critical value remembered) identical to the first."""
    rng = np.random.default_rng(1)
    y = np.concatenate([rng.normal(m, 1, n) for m, n in ((0, 10), (0.4, 12), (1.0, 9))])
    g = np.repeat(["a", "b", "c"], [10, 12, 9])
    first, second = anova_tukey(y, g).tukey, anova_tukey(y, g).tukey
    pd.testing.assert_frame_equal(first, second)
    q = stats.studentized_range.ppf(0.95, 3, len(y) - 3)
    groups = {k: y[g == k] for k in "abc"}
    mse = sum(((v - v.mean()) ** 2).sum() for v in groups.values()) / (len(y) - 3)
    row = first.set_index(["group1", "group2"]).loc[("a", "c")]
    half = q * np.sqrt(mse / 2 * (1 / 10 + 1 / 9))
    diff = groups["c"].mean() - groups["a"].mean()
    assert (row["lower"], row["upper"]) == pytest.approx((diff - half, diff + half), rel=1e-6)


@pytest.mark.parametrize("seed", range(40))
def test_wilcoxon_p_is_scipys(seed):
    """Small samples with ties and zeros (scipy's exact permutation branch, computed here as one matrix
    product), without them (scipy's exact distribution) and larger ones (scipy's normal approximation)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 20))
    x = rng.integers(0, 4, n).astype(float) if seed % 2 else rng.normal(size=n)
    y = rng.integers(0, 4, n).astype(float) if seed % 2 else x + rng.normal(0.3, 1, n)
    if (x == y).all():
        y[0] += 1
    assert wilcoxon_p(x, y) == pytest.approx(stats.wilcoxon(x, y).pvalue, rel=1e-12, abs=1e-15)
