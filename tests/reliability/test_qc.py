"""Quality control of raters."""

import pandas as pd

from crseval.core.types import Ratings
from crseval.reliability.qc import quality_control


def _ratings(rows, extra=None):
    return Ratings(
        pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]), (1, 5), extra=extra
    )


def test_qc_flags_constructed_raters_and_excludes_gold():
    rows, extra = [], []
    for rater, gold_score, seconds in [
        ("good1", 1, 120),
        ("good2", 2, 90),
        ("lazy", 5, 100),
        ("fast", 1, 8),
    ]:
        rows.append(("GOLD", rater, "q", gold_score))
        extra.append(
            {"item": "GOLD", "rater": rater, "gold": True, "time": seconds, "attn": "pass"}
        )
        for i in range(3):
            rows.append((f"d{i}", rater, "q", 3))
            extra.append(
                {
                    "item": f"d{i}",
                    "rater": rater,
                    "gold": False,
                    "time": seconds,
                    "attn": "fail" if rater == "good2" and i == 0 else "pass",
                }
            )
    rep = quality_control(
        _ratings(rows, pd.DataFrame(extra)), time_col="time", min_seconds=30, attention_col="attn"
    )
    reasons = rep.flagged.groupby("rater")["reason"].apply(" | ".join)
    assert set(reasons.index) == {"lazy", "fast", "good2"}
    assert "gold" in reasons["lazy"]
    assert "median time" in reasons["fast"]
    assert "attention" in reasons["good2"]
    assert "GOLD" not in rep.ratings.items
    assert rep.counts["gold items excluded"] == 1
    assert rep.counts["raters retained"] == 4  # flagged, not dropped, unless asked
    dropped = quality_control(
        _ratings(rows, pd.DataFrame(extra)),
        time_col="time",
        min_seconds=30,
        attention_col="attn",
        drop_flagged=True,
    )
    assert dropped.ratings.raters == ["good1"]
