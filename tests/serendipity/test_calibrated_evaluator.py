"""The calibrated serendipity evaluator: a ridge over the other evaluators, fitted in user-grouped nested CV."""

import numpy as np
import pytest

from crseval.core.errors import CrsevalError
from crseval.data import load_dataset
from crseval.judge.calibrated import nested_cv_predictions
from crseval.serendipity.job import predictions


def test_out_of_fold_predictions_from_the_other_evaluators():
    study = load_dataset("sample").serendipity
    preds = predictions(study, ["sog", "random", "snpr", "calibrated"], seed=0)
    assert list(preds) == ["sog", "random", "snpr", "calibrated"]
    X = np.column_stack([preds["sog"], preds["snpr"]])  # random is never an input
    y = study.answers["ground_truth"].to_numpy(float)
    ok = np.isfinite(X).all(axis=1) & np.isfinite(y)
    ref = np.clip(
        nested_cv_predictions(X[ok], y[ok], study.answers["user"].astype(str).to_numpy()[ok]), 1, 5
    )
    assert preds["calibrated"][ok] == pytest.approx(ref)
    assert np.isnan(preds["calibrated"][~ok]).all()
    assert ((preds["calibrated"][ok] >= 1) & (preds["calibrated"][ok] <= 5)).all()


def test_it_needs_other_evaluators():
    with pytest.raises(CrsevalError, match="learns from the other evaluators"):
        predictions(load_dataset("sample").serendipity, ["random", "calibrated"])


def test_an_answer_never_sees_its_own_user():
    """Changing one user's ground truth leaves the predictions for that user's answers unchanged."""
    study = load_dataset("sample").serendipity
    before = predictions(study, ["sog", "snpr", "calibrated"])["calibrated"]
    user = study.answers["user"].iloc[0]
    mine = (study.answers["user"] == user).to_numpy()
    study.answers.loc[mine, "ground_truth"] = 6 - study.answers.loc[mine, "ground_truth"]
    after = predictions(study, ["sog", "snpr", "calibrated"])["calibrated"]
    assert after[mine] == pytest.approx(before[mine], nan_ok=True)
    assert not np.allclose(
        after[~mine], before[~mine], equal_nan=True
    )  # the others' models did change
