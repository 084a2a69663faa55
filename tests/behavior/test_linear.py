"""The saved model's scikit-learn-free parts give scikit-learn's numbers, and scoring with a saved
model imports no scikit-learn."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import cohen_kappa_score

from crseval.behavior.implicit import PairClassifier, kappa
from crseval.behavior.linear import Linear, Tfidf
from crseval.behavior.pairs import make_pairs
from tests.behavior.letters import Letters
from tests.behavior.test_implicit import toy_sentences

TEXTS = [
    "Have you seen Inception (2010)? I LOVED it, loved it!",
    "have you seen it",
    "Ça va? Naïve café — très bien.",
    "I'd recommend the 1st one; it's great.",
    "",
    "x y z",  # one-letter words are no tokens
    "loved it loved it loved it",
    "Or maybe Noah (2014)?",
]


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_is_logistic_regression(n_classes, sparse):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 6))
    y = np.array(list("abcd"[:n_classes]))[rng.integers(0, n_classes, 120)]
    ref = LogisticRegression(C=2.0, max_iter=1000).fit(x, y)
    ours = Linear(ref.coef_, ref.intercept_, ref.classes_)
    x_in = sp.csr_matrix(x) if sparse else x
    assert np.allclose(ours.predict_proba(x_in), ref.predict_proba(x_in), atol=1e-12)
    assert (ours.predict(x_in) == ref.predict(x_in)).all()


def test_tfidf_is_scikit_learns_transform():
    corpus = TEXTS * 2 + ["have you seen the movie", "I loved the movie"]
    ref = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, dtype=np.float32)
    ref.fit(corpus)
    ours = Tfidf(ref.get_feature_names_out().tolist(), ref.idf_)
    got, want = ours.transform(TEXTS), ref.transform(TEXTS)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.allclose(got.toarray(), want.toarray(), atol=1e-7)
    assert got.nnz == want.nnz  # the same terms found (the empty and one-letter texts: none)


def test_kappa_is_cohens():
    rng = np.random.default_rng(1)
    same = rng.integers(0, 2, 500)
    pred = np.where(rng.random(500) < 0.8, same, 1 - same)
    assert kappa(same, pred) == pytest.approx(cohen_kappa_score(same, pred), abs=1e-12)


def test_a_saved_model_scores_without_importing_scikit_learn(tmp_path):
    s = toy_sentences()
    clf = PairClassifier(Letters(), seed=0).fit(s, make_pairs(s, 300, seed=3))
    clf.save(tmp_path / "m")
    test = make_pairs(s, 100, seed=9)
    np.save(tmp_path / "want.npy", clf.proba(test["a"], test["b"]))
    test.to_csv(tmp_path / "pairs.csv", index=False)
    code = f"""
import sys, numpy as np, pandas as pd
from crseval.behavior.implicit import PairClassifier
from tests.behavior.letters import Letters
m = PairClassifier.load({str(tmp_path / "m")!r}, Letters())
t = pd.read_csv({str(tmp_path / "pairs.csv")!r})
got = m.proba(t["a"], t["b"])
assert np.allclose(got, np.load({str(tmp_path / "want.npy")!r}), atol=1e-6), "different scores"
assert "sklearn" not in sys.modules, "scikit-learn was imported"
"""
    root = Path(__file__).parents[2]  # where `tests` imports from
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
