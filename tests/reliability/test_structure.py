"""Correlation structure of rating dimensions."""

import numpy as np
import pandas as pd

from crseval.core.types import Ratings
from crseval.reliability.structure import structure


def _ratings(rows, extra=None):
    return Ratings(
        pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]), (1, 5), extra=extra
    )


def test_structure_groups_dimensions_that_carry_one_signal():
    rng = np.random.default_rng(3)
    q, s = rng.normal(0, 1, 50), rng.normal(0, 1, 50)
    rows = []
    for i in range(50):
        for dim, base in [("a1", q), ("a2", q), ("a3", q), ("b1", s), ("b2", s)]:
            rows.append(
                (
                    f"i{i}",
                    "r",
                    dim,
                    float(np.clip(np.round(3 + base[i] + rng.normal(0, 0.2)), 1, 5)),
                )
            )
    st = structure(_ratings(rows), n_clusters=2)
    c = st.clusters
    assert c["a1"] == c["a2"] == c["a3"] != c["b1"] == c["b2"]
    assert st.correlations.loc["a1", "a2"] > 0.8
    assert abs(st.correlations.loc["a1", "b1"]) < 0.4
