import pandas as pd
import pytest

from tests.support.cli import crseval
from tests.support.runs import listed_figures


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
    assert follow["checks"] == 12 and follow["reversed"] == 0 and follow["held"] >= 7
    assert tas["reversed"] >= 2 and tas["verdict"] == "fails"
    checks = pd.read_csv(out / "tables" / "known_groups.csv")
    hall = checks[checks["metric"] == "shift.follow.hallucination_rate"]
    assert set(hall["worse"]) == {"hallucinator"} and (hall["verdict"] == "held").all()
    assert set(checks["turns"]) == {6, 10}
    assert "known_groups" in listed_figures(out) and (out / "turns-6" / "report.html").is_file()


@pytest.mark.slow  # two shift runs, one judged (scripted): 17 s
def test_the_judges_aspects_are_checked_in_a_judged_part_of_their_own(tmp_path):
    """--judge adds one smaller part whose sessions the judge rates (the scripted backend stands in); only
    the judge's aspects are checked there — every other metric is checked at full size."""
    out = tmp_path / "kg"
    crseval(
        "shift", "known-groups", "--sessions", "6", "--lengths", "6", "--judge", "--judge-sessions",
        "5", "--judge-turns", "4", "--backend", "scripted", "--n-boot", "100", "--out", out,
    )  # fmt: skip
    checks = pd.read_csv(out / "tables" / "known_groups.csv")
    judged = checks[checks["turns"] == 4]
    assert set(judged["metric"]) == {
        "shift.proactiveness",
        "shift.coherence",
        "shift.personalization",
    }
    assert len(judged) == 18  # three aspects × the six CRSs that do not follow
    assert "shift.tas" in set(checks.loc[checks["turns"] == 6, "metric"])
    assert (out / "judged" / "report.html").is_file()
