"""The grouped ridge penalty search against scikit-learn's GridSearchCV over the same pipeline and folds."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from crseval.judge.calibrated import ALPHAS
from crseval.stats.ridge import GroupedRidgeSearch


def _grid(folds: int) -> GridSearchCV:
    return GridSearchCV(
        make_pipeline(StandardScaler(), Ridge()),
        {"ridge__alpha": list(ALPHAS)},
        cv=GroupKFold(folds),
        scoring="neg_mean_squared_error",
    )


@pytest.mark.parametrize("seed", range(6))
def test_chooses_gridsearchcvs_penalty_and_predicts_what_its_refit_predicts(seed):
    rng = np.random.default_rng(seed)
    n, p = rng.integers(30, 200), rng.integers(2, 40)  # fewer rows than features in some folds too
    X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10, p) + rng.normal(size=p)
    X[:, 0] = 1.0  # a constant column: StandardScaler leaves it at zero
    y = X[:, 1:4] @ rng.normal(size=3) + rng.normal(scale=rng.uniform(0.5, 5), size=n)
    groups = rng.integers(0, rng.integers(5, 25), n)
    folds = min(5, len(np.unique(groups)))
    ours = GroupedRidgeSearch(ALPHAS, folds).fit(X, y, groups)
    ref = _grid(folds).fit(X, y, groups=groups)
    assert ours.best_alpha_ == ref.best_params_["ridge__alpha"]
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.cv_errors_, -ref.cv_results_["mean_test_score"], rtol=1e-9)
