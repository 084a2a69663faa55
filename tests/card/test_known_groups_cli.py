import pandas as pd

from tests.support.cli import crseval


def test_known_groups_rank_following_above_tas(tmp_path):
    """The battery at two lengths: verified following is never reversed and mostly holds; TAS is reversed
    by the CRSs that ignore or echo the user (the failure the card labels)."""
    out = tmp_path / "kg"
    res = crseval(
        "shift", "known-groups", "--sessions", "12", "--lengths", "6,10", "--n-boot", "200",
        "--out", out,
    )  # fmt: skip
    assert "shift.follow.follow_rate" in res.stdout
    summary = pd.read_csv(out / "tables" / "known_groups_summary.csv").set_index("metric")
    follow, tas = summary.loc["shift.follow.follow_rate"], summary.loc["shift.tas"]
    assert follow["checks"] == 10 and follow["reversed"] == 0 and follow["held"] >= 6
    assert tas["reversed"] >= 2 and tas["verdict"] == "fails"
    checks = pd.read_csv(out / "tables" / "known_groups.csv")
    hall = checks[checks["metric"] == "shift.follow.hallucination_rate"]
    assert set(hall["worse"]) == {"hallucinator"} and (hall["verdict"] == "held").all()
    assert set(checks["turns"]) == {6, 10}
    assert (out / "figures" / "known_groups.png").is_file() and (
        out / "turns-6" / "report.html"
    ).is_file()
