"""Panels: per-judge agreement and the reliability of the mean of n judges."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval.judge.panel import judge_agreement, mean_of_n, panel_ratings


def test_panel_agreement_and_mean_of_n():
    rng = np.random.default_rng(4)
    truth = rng.normal(3, 1, 60)
    human = pd.Series(truth, index=[f"i{i}" for i in range(60)])
    records = [
        {
            "item": f"i{i}",
            "judge": f"j{j}",
            "sample": 0,
            "aspect": "overall",
            "score": float(np.clip(truth[i] + rng.normal(0, 1.0), 1, 5)),
        }
        for i in range(60)
        for j in range(5)
    ]
    pr = panel_ratings(records, "overall")
    assert pr.raters == [f"j{j}#s0" for j in range(5)]
    agree = judge_agreement(records, human, "overall", human_scale=(1, 5)).set_index("judge")
    s = pd.DataFrame(records).query("judge == 'j0'").set_index("item")["score"]
    assert agree.loc["j0", "pearson"] == pytest.approx(stats.pearsonr(s[human.index], human)[0])
    assert "kappa_quadratic" in agree
    mon = mean_of_n(pr, human)
    assert mon["spearman_brown_icc"].is_monotonic_increasing
    assert mon["pearson_with_human"].iloc[-1] > mon["pearson_with_human"].iloc[0]
