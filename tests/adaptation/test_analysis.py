"""ANOVA and Tukey HSD against independent implementations on the same data; bootstrap CIs; correlations."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.oneway import anova_oneway

from crseval.adaptation.analysis import anova_tukey, correlations, model_metrics


@pytest.fixture
def sessions():
    rng = np.random.default_rng(0)
    rows = []
    for m, mu, n in (("a", 0.5, 12), ("b", 0.6, 10), ("c", 0.52, 14)):
        for s in range(n):
            rows.append(
                {
                    "system": m,
                    "session": str(s),
                    "failed": False,
                    "tas": mu + rng.normal(0, 0.05),
                    "coherence": 3 + 10 * mu + rng.normal(0, 0.4),
                }
            )
    rows.append(
        {"system": "a", "session": "99", "failed": True, "tas": 100.0, "coherence": 100.0}
    )  # excluded
    return pd.DataFrame(rows)


def test_anova_matches_scipy_and_statsmodels_oneway(sessions):
    anova, _ = anova_tukey(sessions, ["tas"])
    ok = sessions[~sessions["failed"]]
    groups = [g["tas"].to_numpy() for _, g in ok.groupby("system")]
    f = stats.f_oneway(*groups)
    sm = anova_oneway(ok["tas"], ok["system"], use_var="equal")
    row = anova.iloc[0]
    assert row["F"] == pytest.approx(f.statistic) == pytest.approx(sm.statistic)
    assert row["p"] == pytest.approx(f.pvalue) == pytest.approx(sm.pvalue)
    assert (row["df_between"], row["df_within"]) == (2, len(ok) - 3)


def test_tukey_matches_scipy(sessions):
    _, tukey = anova_tukey(sessions, ["tas"])
    ok = sessions[~sessions["failed"]]
    names = sorted(ok["system"].unique())
    ref = stats.tukey_hsd(*[ok[ok["system"] == m]["tas"].to_numpy() for m in names])
    for r in tukey.itertuples():
        i, j = names.index(r.group1), names.index(r.group2)
        assert r.p_tukey == pytest.approx(ref.pvalue[i, j], abs=2e-3)
        assert r.meandiff == pytest.approx(
            ok[ok.system == r.group2].tas.mean() - ok[ok.system == r.group1].tas.mean()
        )
    assert tukey[(tukey.group1 == "a") & (tukey.group2 == "b")]["reject"].item()


def test_anova_skips_metrics_without_within_model_variation():
    df = pd.DataFrame(
        {
            "system": list("aabb"),
            "session": list("0101"),
            "failed": False,
            "x": [1.0, 1.0, 0.0, 0.0],
        }
    )
    anova, tukey = anova_tukey(df, ["x"])
    assert np.isnan(anova.iloc[0]["F"])
    assert "variation" in anova.iloc[0]["note"]
    assert tukey.empty


def test_model_metrics_ci_contains_the_mean_and_excludes_failed_sessions(sessions):
    mm = model_metrics(sessions, ["tas"], n_boot=500)
    a = mm[(mm.system == "a") & (mm.metric == "tas")].iloc[0]
    ok = sessions[(sessions.system == "a") & ~sessions.failed]
    assert a["mean"] == pytest.approx(ok.tas.mean())
    assert a["n"] == len(ok)
    assert a["ci_lo"] < a["mean"] < a["ci_hi"]


def test_correlations_match_scipy(sessions):
    c = correlations(sessions, ["tas"], ["coherence"]).iloc[0]
    ok = sessions[~sessions["failed"]]
    assert c["pearson_r"] == pytest.approx(stats.pearsonr(ok.tas, ok.coherence)[0])
    assert c["spearman_rho"] == pytest.approx(stats.spearmanr(ok.tas, ok.coherence)[0])


def test_pass_hat_k_by_hand():
    from crseval.adaptation.analysis import pass_hat_k

    sessions = pd.DataFrame(
        {
            "system": ["m"] * 6,
            "user": [0, 0, 0, 1, 1, 1],
            "failed": [False] * 6,
            "follow.success": [1.0, 1.0, 0.0, 1.0, np.nan, 1.0],
        }
    )  # no shift: nothing failed
    got = pass_hat_k(sessions, n_boot=0).set_index("k_sessions")["pass_k"]
    # user 0: C(2,k)/C(3,k) = 2/3, 1/3, 0; user 1: 1, 1, 1
    assert got.to_dict() == pytest.approx({1: (2 / 3 + 1) / 2, 2: (1 / 3 + 1) / 2, 3: 0.5})
    assert pass_hat_k(
        sessions.assign(user=range(6)), n_boot=0
    ).empty  # one session per user: no pass^k


def test_repeated_sessions_meet_the_same_user_with_a_reseeded_crs():
    from crseval.simulation.config import SessionSpec
    from crseval.simulation.session import run_session

    spec = SessionSpec(seed=1, turns=3, repeats=2, models=[{"name": "t", "kind": "template"}])
    a, b, c = (run_session(spec, "t", s) for s in (0, 1, 2))
    assert (a["user"], b["user"], c["user"]) == (0, 0, 1)
    assert a["seed"] == b["seed"] != c["seed"] and a["turns"][0]["user"] == b["turns"][0]["user"]
    single = run_session(
        SessionSpec(seed=1, turns=3, models=[{"name": "t", "kind": "template"}]), "t", 0
    )
    assert single["seed"] == a["seed"] and single["user"] == 0  # repeats = 1 keeps the old seeds
