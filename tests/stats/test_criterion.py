import numpy as np
import pytest
from scipy.stats import binomtest, kendalltau
from sklearn.metrics import roc_auc_score

from crseval.stats.criterion import battle_agreement, concordance, system_tau


def test_concordance_of_a_binary_label_is_the_roc_auc_and_its_direction_flips_it():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    x = y + rng.normal(0, 1.5, 200).round(1)  # ties too
    users = np.arange(200) // 2
    est = concordance(x, y, users, n_boot=500)
    assert est.value == pytest.approx(roc_auc_score(y, x))
    assert est.lo < est.value < est.hi and est.n == 200
    assert concordance(x, y, users, higher_is_better=False, n_boot=50).value == pytest.approx(
        1 - roc_auc_score(y, x)
    )


def test_concordance_of_a_rating_counts_pairs_with_different_ratings_by_hand():
    x, y = [1, 2, 2, 5, np.nan], [1, 2, 3, 3, 1]
    # pairs (better-rated, worse-rated): (2,1) win, (3,1) win, (4,1) win, (3,2) tie, (4,2) win; (3,4) same rating
    assert concordance(x, y, range(5), n_boot=50).value == pytest.approx(4.5 / 5)


def test_concordance_clusters_resample_users_whole_so_the_interval_widens():
    rng = np.random.default_rng(2)
    users = np.repeat(np.arange(40), 5)  # a user's five dialogues share their label and value
    y = np.repeat(rng.integers(0, 2, 40), 5)
    x = np.repeat(rng.normal(size=40), 5) + y
    whole = concordance(x, y, users, n_boot=1000)
    apart = concordance(x, y, np.arange(200), n_boot=1000)
    assert whole.value == apart.value
    assert whole.hi - whole.lo > 1.5 * (apart.hi - apart.lo)


def test_battle_agreement_leaves_ties_out_and_tests_against_half():
    a, b = [3, 2, 1, 4, 5, np.nan, 2], [1, 1, 2, 4, 0, 1, 1]
    out = battle_agreement(a, b, range(7), n_boot=200)
    assert (out.n, out.ties) == (5, 1)
    assert out.share == pytest.approx(4 / 5)
    assert out.p == pytest.approx(binomtest(4, 5, 0.5).pvalue)
    assert battle_agreement(a, b, range(7), higher_is_better=False, n_boot=50).share == 1 / 5


def test_system_tau_is_kendalls_tau_of_the_system_means():
    rng = np.random.default_rng(3)
    systems = np.repeat(list("abcdef"), 30)
    x = rng.normal(size=180) + np.repeat(np.arange(6), 30) * 0.3
    elo = {"a": 900, "b": 950, "c": 940, "d": 1000, "e": 1010, "f": 1100, "g": 800}
    means = [x[systems == s].mean() for s in "abcdef"]
    est = system_tau(x, systems, elo, n_boot=300)
    assert est.value == pytest.approx(kendalltau(means, [elo[s] for s in "abcdef"]).statistic)
    assert est.n == 6 and est.lo <= est.value <= est.hi
    assert system_tau(x, systems, elo, higher_is_better=False, n_boot=50).value == -est.value
    assert np.isnan(system_tau(x[:60], systems[:60], elo, n_boot=50).value)  # two systems
