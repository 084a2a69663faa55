"""Crossed REML against known variance components and statsmodels' truly crossed MixedLM."""

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from crseval.reliability.crossed import crossed_reliability
from crseval.reliability.icc import oneway_reml
from crseval.reliability.reml import fit_reml


def simulate(n_items, n_raters, per_item, sd_item, sd_rater, sd_resid, seed):
    rng = np.random.default_rng(seed)
    u, v = rng.normal(0, sd_item, n_items), rng.normal(0, sd_rater, n_raters)
    rows = [
        (f"i{i}", f"r{r}", 3 + u[i] + v[r] + rng.normal(0, sd_resid))
        for i in range(n_items)
        for r in rng.choice(n_raters, size=rng.integers(*per_item), replace=False)
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "y"])


def statsmodels_crossed(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = smf.mixedlm(
            "y ~ 1",
            df,
            groups=np.ones(len(df)),
            vc_formula={"item": "0 + C(item)", "rater": "0 + C(rater)"},
        ).fit(reml=True)
    vc = dict(zip(m.model.exog_vc.names, m.vcomp))
    return vc["item"], vc["rater"], m.scale


def test_recovers_known_components():
    df = simulate(400, 60, (4, 8), 1.0, 0.7, 0.8, seed=11)
    fit = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    assert fit.variances["item"] == pytest.approx(1.0, rel=0.2)
    assert fit.variances["rater"] == pytest.approx(0.49, rel=0.4)
    assert fit.residual == pytest.approx(0.64, rel=0.1)


@pytest.mark.parametrize("seed", [3, 4])
def test_matches_statsmodels_crossed_mixedlm(seed):
    df = simulate(80, 20, (3, 7), 1.0, 0.6, 0.9, seed)
    fit = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    ref = statsmodels_crossed(df)
    ours = (fit.variances["item"], fit.variances["rater"], fit.residual)
    assert np.allclose(ours, ref, rtol=1e-3, atol=1e-4), (ours, ref)


def test_matches_statsmodels_on_crs_que(shared):
    from crseval.data import load_dataset
    from crseval.reliability.qc import quality_control

    ratings = quality_control(
        load_dataset("crs-que", shared("judgments/crs_que/annotations.csv"))
    ).ratings
    d = ratings.dimension("satisfaction").rename(columns={"value": "y"})
    fit = fit_reml(d["y"], {"item": d["item"], "rater": d["rater"]})
    ref = statsmodels_crossed(d)
    assert np.allclose(
        (fit.variances["item"], fit.variances["rater"], fit.residual), ref, rtol=2e-3
    )


def test_nested_statsmodels_model_collapses_to_icc1_but_crossed_does_not():
    """The trap the issue warns about: rater as a variance component *within item groups*."""
    df = simulate(100, 15, (4, 7), 1.0, 1.0, 0.7, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested = smf.mixedlm(
            "y ~ 1", df, groups="item", re_formula="1", vc_formula={"rater": "0 + C(rater)"}
        ).fit(reml=True)
    crossed = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    oneway = oneway_reml(df["y"], df["item"])
    nested_icc = float(nested.cov_re.iloc[0, 0]) / float(
        nested.cov_re.iloc[0, 0] + nested.vcomp[0] + nested.scale
    )
    # nested: a rater's effect is re-drawn in every item, so it cannot be told from the residual and
    # the item share is exactly the one-way ICC(1) …
    assert nested_icc == pytest.approx(oneway.icc1, abs=0.02)
    # … while the crossed model recovers the rater (leniency) variance that was simulated (1.0)
    assert crossed.variances["rater"] == pytest.approx(1.0, rel=0.5)


def test_boundary_zero_rater_variance():
    df = simulate(150, 20, (3, 6), 1.0, 0.0, 1.0, seed=8)
    fit = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    ref = statsmodels_crossed(df)
    assert fit.variances["rater"] < 0.05
    assert fit.variances["item"] == pytest.approx(ref[0], abs=0.02)


def test_reliability_formulas_and_bootstrap_ci():
    df = simulate(120, 25, (4, 7), 1.0, 0.5, 0.8, seed=9)
    c = crossed_reliability(df["y"], df["item"], df["rater"], ci="bootstrap", n_boot=60, seed=1)
    total = c.var_item + c.var_rater + c.var_resid
    assert c.rel_single == pytest.approx(c.var_item / total)
    assert c.rel_k == pytest.approx(c.var_item / (c.var_item + (c.var_rater + c.var_resid) / c.k))
    lo, hi = c.ci["rel_k"]
    assert lo < c.rel_k < hi
    assert 0 <= lo
    assert hi <= 1
    assert c.ci["var_item"][0] < 1.0 < c.ci["var_item"][1]  # the true value is covered here


def test_sparse_path_agrees_with_the_schur_path(monkeypatch):
    from crseval.reliability import reml

    df = simulate(120, 30, (3, 7), 1.0, 0.6, 0.8, seed=21)
    dense = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    monkeypatch.setattr(reml, "DENSE_LIMIT", 10)  # force the sparse LU path
    sparse = fit_reml(df["y"], {"item": df["item"], "rater": df["rater"]})
    for k in ("item", "rater", "residual"):
        assert sparse.variances[k] == pytest.approx(dense.variances[k], rel=1e-4, abs=1e-6)
    assert np.allclose(sparse.modes["rater"], dense.modes["rater"], atol=1e-4)


def test_profile_and_bootstrap_intervals_agree_roughly():
    df = simulate(120, 25, (4, 7), 1.0, 0.5, 0.8, seed=9)
    prof = crossed_reliability(df["y"], df["item"], df["rater"], ci="profile")
    boot = crossed_reliability(df["y"], df["item"], df["rater"], ci="bootstrap", n_boot=100, seed=1)
    assert set(prof.ci) == {"rel_single", "rel_k"}  # the profile covers the reliabilities only
    for name in ("rel_single", "rel_k"):
        assert prof.ci[name] == pytest.approx(boot.ci[name], abs=0.05)
