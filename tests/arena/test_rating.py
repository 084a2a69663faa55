"""Arena ratings: Elo by hand, Bradley–Terry against an independent MM fit (Hunter 2004)."""

import numpy as np
import pandas as pd
import pytest

from crseval.arena.rating import (
    ELO_SCALE,
    bradley_terry,
    elo,
    record,
    votes_needed,
    win_probability,
)


def _votes(rows):
    return pd.DataFrame(rows, columns=["crs1", "crs2", "vote"])


def test_elo_by_hand():
    v = _votes([("a", "b", "a"), ("b", "c", "tie"), ("a", "c", "c")])
    r = elo(v)
    a1, b1 = 1000 + 16 * 0.5, 1000 - 16 * 0.5  # equal ratings: expected ½
    eb = 1 / (1 + 10 ** ((1000 - b1) / 400))
    b2, c1 = b1 + 16 * (0.5 - eb), 1000 + 16 * (0.5 - (1 - eb))
    ea = 1 / (1 + 10 ** ((c1 - a1) / 400))
    assert r["a"] == pytest.approx(a1 + 16 * (0 - ea))
    assert r["c"] == pytest.approx(c1 + 16 * (1 - (1 - ea)))
    assert r["b"] == pytest.approx(b2)
    assert sum(r.values()) == pytest.approx(3000)  # Elo is zero-sum


def _mm(n, wins, iters=5000):
    """Hunter's MM algorithm for the Bradley–Terry MLE; wins[i, j] = (weighted) wins of i over j."""
    p = np.ones(n)
    games = wins + wins.T
    for _ in range(iters):
        p = wins.sum(axis=1) / np.array(
            [sum(games[i, j] / (p[i] + p[j]) for j in range(n) if j != i) for i in range(n)]
        )
        p /= np.exp(np.log(p).mean())
    return np.log(p)


def test_bradley_terry_is_the_maximum_likelihood_fit():
    rng = np.random.default_rng(0)
    systems = ["a", "b", "c", "d"]
    strength = np.array([1.0, 0.4, 0.0, -0.8])
    rows = []
    for _ in range(400):
        i, j = rng.choice(4, 2, replace=False)
        u = rng.random()
        p = 1 / (1 + np.exp(strength[j] - strength[i]))
        rows.append(
            (
                systems[i],
                systems[j],
                "tie" if abs(u - p) < 0.05 else systems[i] if u < p else systems[j],
            )
        )
    v = _votes(rows)
    bt = bradley_terry(v, systems, alpha=0)
    wins = np.zeros((4, 4))
    for a, b, vote in rows:
        i, j = systems.index(a), systems.index(b)
        if vote == "tie":
            wins[i, j] += 0.5
            wins[j, i] += 0.5
        else:
            w = i if vote == a else j
            wins[w, j if w == i else i] += 1
    ref = _mm(4, wins)
    assert (bt - 1000) / ELO_SCALE == pytest.approx(ref - ref.mean(), abs=1e-4)
    assert list(np.argsort(-bt)) == [0, 1, 2, 3]
    p = win_probability(bt)
    assert p[0, 1] == pytest.approx(1 / (1 + np.exp(-(ref[0] - ref[1]))), abs=1e-4)
    assert p + p.T == pytest.approx(np.ones((4, 4)))


def test_a_system_that_never_wins_stays_finite_and_records_count():
    v = _votes([("a", "b", "a"), ("a", "b", "a"), ("b", "c", "b"), ("a", "c", "tie")])
    bt = bradley_terry(v, ["a", "b", "c"])
    assert np.isfinite(bt).all() and bt[0] > bt[1]
    rec = record(v, ["a", "b", "c"])
    assert rec.loc["a"].tolist() == [2, 0, 1] and rec.loc["c"].tolist() == [0, 1, 1]
    assert votes_needed(200, 100, 100) == 400


def test_davidson_without_ties_is_bradley_terry():
    from crseval.arena.rating import davidson

    rng = np.random.default_rng(1)
    systems = ["a", "b", "c"]
    strength = np.array([0.8, 0.0, -0.5])
    rows = []
    for _ in range(300):
        i, j = rng.choice(3, 2, replace=False)
        rows.append(
            (
                systems[i],
                systems[j],
                systems[i]
                if rng.random() < 1 / (1 + np.exp(strength[j] - strength[i]))
                else systems[j],
            )
        )
    wins = np.zeros((3, 3))
    for a, b, vote in rows:
        w, l_ = (
            (systems.index(a), systems.index(b))
            if vote == a
            else (systems.index(b), systems.index(a))
        )
        wins[w, l_] += 1
    ratings, nu = davidson(_votes(rows), systems, alpha=0)
    ref = _mm(3, wins)
    assert (ratings - 1000) / ELO_SCALE == pytest.approx(ref - ref.mean(), abs=1e-4)
    assert nu < 1e-4  # ν → 0: no ties, no tie parameter


def test_davidson_recovers_strengths_and_tie_rate_from_its_own_model():
    """Votes drawn from the Davidson model with known strengths and ν: the fit finds them again."""
    from scipy.optimize import approx_fprime

    from crseval.arena.rating import _davidson_nll, davidson

    rng = np.random.default_rng(2)
    systems, theta, nu = ["a", "b", "c", "d"], np.array([0.6, 0.2, -0.1, -0.7]), 0.8
    rows = []
    for _ in range(6000):
        i, j = rng.choice(4, 2, replace=False)
        pi, pj, t = np.exp(theta[i]), np.exp(theta[j]), nu * np.exp((theta[i] + theta[j]) / 2)
        u = rng.random() * (pi + pj + t)
        rows.append(
            (systems[i], systems[j], systems[i] if u < pi else systems[j] if u < pi + pj else "tie")
        )
    v = _votes(rows)
    ratings, got_nu = davidson(v, systems, alpha=0)
    assert (ratings - 1000) / ELO_SCALE == pytest.approx(theta - theta.mean(), abs=0.06)
    assert got_nu == pytest.approx(nu, abs=0.05)
    # the analytic gradient agrees with finite differences
    i = np.array([systems.index(a) for a in v["crs1"]])
    j = np.array([systems.index(b) for b in v["crs2"]])
    out = np.where(v["vote"] == "tie", 0, np.where(v["vote"] == v["crs1"], 1, -1))
    x = np.array([0.3, -0.2, 0.1, 0.0, np.log(0.5)])
    num = approx_fprime(x, lambda z: _davidson_nll(z, i, j, out, 0.1)[0], 1e-6)
    assert _davidson_nll(x, i, j, out, 0.1)[1] == pytest.approx(num, rel=1e-4, abs=1e-3)


def test_the_penalty_and_the_tie_score_that_run_are_the_ones_signed(tmp_path):
    """One constant each, read by the fits' defaults and by the run's signature."""
    import inspect
    import json

    from crseval import evaluate
    from crseval.arena import rating

    for fn in (rating.bradley_terry, rating.davidson, rating.fit, rating.bootstrap):
        assert inspect.signature(fn).parameters["alpha"].default == rating.ALPHA
    votes = tmp_path / "votes.csv"
    votes.write_text("crs1,crs2,vote\n" + "x,y,x\ny,z,tie\nx,z,z\n" * 4)
    evaluate("arena", {"votes": [str(votes)], "n_boot": 20}, out=tmp_path / "r")
    line = json.loads((tmp_path / "r" / "signature.json").read_text())["line"]
    assert f"alpha={rating.ALPHA:g}" in line and f"tie={rating.TIE_SCORE:g}" in line
