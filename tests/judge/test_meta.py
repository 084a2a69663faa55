"""System-level agreement of a judge with people, against a hand computation and scipy."""

import numpy as np
import pandas as pd
from scipy import stats

from crseval.judge.meta import system_level


def test_system_level_correlates_the_per_system_means():
    both = pd.DataFrame(
        {
            "system": list("aaabbbccddd"),
            "s": [1, 2, 3, 2, 2, 5, 4, 6, 9, 8, 7],
            "h": [0, 1, 1, 1, 2, 2, 1, 2, 4, 4, 4],
        },
        dtype=object,
    ).astype({"s": float, "h": float})
    # per-system means: a (2, 2/3), b (3, 5/3), c (5, 1.5), d (8, 4)
    s, h = np.array([2, 3, 5, 8.0]), np.array([2 / 3, 5 / 3, 1.5, 4])
    row = system_level(both, n_boot=300, seed=1)
    assert row["systems"] == 4
    assert np.isclose(row["pearson"], stats.pearsonr(s, h)[0])
    assert np.isclose(row["spearman"], 0.8) and np.isclose(
        row["kendall"], stats.kendalltau(s, h)[0]
    )
    assert np.isclose(row["kendall"], 4 / 6)  # 5 concordant pairs of 6, one discordant (b, c)
    for m in ("pearson", "spearman", "kendall"):
        assert row[f"{m}_lo"] <= row[m] + 1e-9 and row[m] <= row[f"{m}_hi"] + 1e-9


def test_system_level_intervals_are_the_stratified_item_bootstrap():
    """The vectorised resampling equals item_bootstrap's stratified draws with scipy's correlations."""
    from crseval.stats.bootstrap import item_bootstrap
    from crseval.stats.correlation import correlation_ci

    rng = np.random.default_rng(7)
    systems = rng.choice(list("pqrstuvw"), 90)
    # integer scores and labels (sums exact in any order), tied system means included
    both = pd.DataFrame(
        {
            "system": systems,
            "s": rng.integers(0, 4, 90).astype(float),
            "h": rng.integers(0, 3, 90).astype(float),
        }
    )
    both["s"] += pd.Series(systems).map({c: i % 3 for i, c in enumerate("pqrstuvw")})
    got = system_level(both, n_boot=200, seed=3)
    order = np.argsort(pd.factorize(both["system"])[0], kind="stable")
    codes = pd.factorize(both["system"])[0][order]
    s, h = both["s"].to_numpy()[order], both["h"].to_numpy()[order]

    def means(idx):
        n = np.bincount(codes[idx], minlength=8)
        return np.bincount(codes[idx], s[idx], 8) / n, np.bincount(codes[idx], h[idx], 8) / n

    for m in ("pearson", "spearman", "kendall"):
        lo, hi = item_bootstrap(
            lambda i: correlation_ci(*means(i), m, n_boot=0)[0],
            90,
            n_boot=200,
            seed=3,
            strata=codes,
        )
        assert np.isclose(got[f"{m}_lo"], lo) and np.isclose(got[f"{m}_hi"], hi), m


def test_system_level_of_a_judge_that_scored_none_of_the_dialogues_is_empty_not_a_crash():
    """A reference that covers another training set scores none of this one's dialogues: its row says so."""
    both = pd.DataFrame({"system": [], "s": [], "h": []}, dtype=float)
    row = system_level(both, n_boot=50, seed=0)
    assert row["systems"] == 0
    assert all(
        np.isnan(row[f"{m}{p}"])
        for m in ("pearson", "spearman", "kendall")
        for p in ("", "_lo", "_hi")
    )
    assert set(row) == set(system_level(_three_systems(), n_boot=50, seed=0))


def _three_systems() -> pd.DataFrame:
    return pd.DataFrame(
        {"system": list("aabbcc"), "s": [1.0, 2, 3, 4, 5, 7], "h": [0.0, 1, 1, 2, 2, 3]}
    )
