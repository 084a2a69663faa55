"""Tukey HSD on fixed quadrature nodes against scipy's adaptive studentized range and statsmodels' table."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from crseval.stats.tukey import studentized_range_ppf, studentized_range_sf, tukey_hsd


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_the_studentized_range_is_scipys(k):
    q = np.array([0.0, 0.3, 1, 2, 3, 4.5, 7, 12, 40, 160])  # 40, 160: the tail few error df reach
    for df in (1, 3, 12, 100, 20000):
        assert studentized_range_sf(q, k, df) == pytest.approx(
            stats.studentized_range.sf(q, k, df), abs=1e-10
        )
    for p, df in (
        (0.95, 2),
        (0.95, 60),
        (0.99, 1),
    ):  # (0.99, 1): far in the tail (246 for 10 means)
        assert studentized_range_ppf(p, k, df) == pytest.approx(
            stats.studentized_range.ppf(p, k, df), rel=1e-7
        )


@pytest.mark.parametrize("seed", range(6))
def test_the_table_is_statsmodels_pairwise_tukeyhsd(seed):
    """Unequal groups (Tukey–Kramer), 2 to 6 of them, names out of order."""
    rng = np.random.default_rng(seed)
    k = 2 + seed % 5
    sizes = rng.integers(3, 15, k)
    y = np.concatenate([rng.normal(rng.normal(0, 1), 1, n) for n in sizes])
    g = np.repeat([f"m{c}" for c in rng.permutation(k)], sizes)
    mine = tukey_hsd(y, g)
    ref = pairwise_tukeyhsd(y, g)
    assert list(zip(mine["group1"], mine["group2"])) == [
        (a, b) for i, a in enumerate(ref.groupsunique) for b in ref.groupsunique[i + 1 :]
    ]
    assert mine["meandiff"].to_numpy() == pytest.approx(ref.meandiffs)
    assert mine["p_tukey"].to_numpy() == pytest.approx(ref.pvalues, abs=1e-9)
    assert mine[["lower", "upper"]].to_numpy() == pytest.approx(ref.confint, rel=1e-8)
    assert (mine["reject"].to_numpy() == ref.reject).all()
