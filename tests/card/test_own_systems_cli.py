"""Your CRS against your CRS: `evaluate-crs v2 --against v1=…,template` puts your own systems on the same
simulated users and contexts as the references, one paired column each (Holm-adjusted stars)."""

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli import crseval

ROOT = Path(__file__).resolve().parents[2]
V1, V2 = ROOT / "examples" / "my_crs.py", ROOT / "examples" / "my_crs_v2.py"
SMALL = ("--sessions", "24", "--turns", "8", "--n-boot", "200")


@pytest.fixture(scope="module")
def v2_vs_v1(tmp_path_factory):
    out = tmp_path_factory.mktemp("own") / "run"
    res = crseval(
        "evaluate-crs", V2, "--against", f"v1={V1},template", "--no-llm", *SMALL,
        "--out", out, "--format", "json",
    )  # fmt: skip
    return out, json.loads(res.stdout.split("\nreport:")[0])


def test_your_earlier_version_gets_a_paired_column_of_its_own(v2_vs_v1):
    out, payload = v2_vs_v1
    card = {r["label"]: r for r in payload["result"]}
    assert {"vs v1", "vs template"} <= set(card["follow rate (verified)"])
    assert "vs stubborn" not in card["follow rate (verified)"]
    cmp = pd.read_csv(out / "tables" / "card_comparisons.csv")
    follow = cmp[cmp["metric"] == "shift.follow.follow_rate"].set_index("reference")
    assert follow.loc["v1", "diff"] > 0.05  # v2 reads every genre and decades; v1 eight genres
    # Holm over the row's two comparisons: never below the raw p, at most twice it
    assert (follow["p_holm"] >= follow["p"]).all()
    assert (follow["p_holm"] <= 2 * follow["p"] + 1e-12).all()
    # v1 met the same users: its sessions are in the shift part, its replies in a behavior part
    sessions = pd.read_csv(out / "shift" / "tables" / "shift_sessions.csv")
    assert {"my_crs_v2", "v1", "template", "stubborn"} <= set(sessions["model"])
    assert (out / "behavior" / "v1" / "report.html").is_file()
    # which behaviours the simulated users tested on the CRS, from their logged truth
    (did,) = [
        n for n in payload["notes"] if n.startswith("What the simulated users did to my_crs_v2")
    ]
    assert "in 24 sessions" in did and "genre changes" in did and "rejections or complaints" in did


@pytest.mark.parametrize(
    "against, says",
    [
        ("template,nonsense", "'nonsense' is neither a reference"),
        (str(V2), "two CRSs share a name"),
        ("stubborn=crs.py", "'stubborn': a name is"),
    ],
)
def test_a_bad_against_is_one_line_naming_the_option(against, says):
    res = crseval("evaluate-crs", V2, "--against", against, "--no-llm", "--dry-run", check=False)
    assert res.returncode == 2
    (line,) = [x for x in res.stderr.splitlines() if x.strip()]
    assert says in line and "against" in line


def test_a_misspelt_baseline_fails_at_once_naming_it():
    res = crseval(
        "evaluate-crs", V2, "--against", "v1=tests.card.test_own_systems_cli:nope", "--dry-run",
        check=False,
    )  # fmt: skip
    assert res.returncode == 2 and "nope" in res.stderr and "against.v1" in res.stderr


def test_two_cards_compare_a_named_system_of_each_on_their_shared_units(v2_vs_v1, tmp_path):
    out, _ = v2_vs_v1
    v1 = tmp_path / "v1"
    crseval("evaluate-crs", V1, "--against", "template", "--no-llm", *SMALL, "--out", v1)
    res = crseval("compare", v1, out, "--format", "json")
    got = pd.DataFrame(json.loads(res.stdout)["result"]).set_index("metric")
    cmp = pd.read_csv(out / "tables" / "card_comparisons.csv")
    inside = cmp[cmp["reference"] == "v1"].set_index("metric")
    assert set(got.index) == set(inside.index)  # every card metric, one pair of systems
    # the same seeds are the same simulated users: v2 − v1 is the card's own paired difference
    for m in inside.index:
        assert got.loc[m, "diff"] == pytest.approx(inside.loc[m, "diff"], nan_ok=True), m
    assert (got["system_a"] == "my_crs").all() and (got["system_b"] == "my_crs_v2").all()
    res = crseval("compare", v1, out, "--systems", "my_crs,nope", check=False)
    assert res.returncode == 2 and "'nope' is not on the card" in res.stderr
    res = crseval("compare", v1, out, "--systems", "template,template", "--format", "json")
    same = pd.DataFrame(
        json.loads(res.stdout)["result"]
    )  # one reference on both cards: the same sessions
    assert (same["diff"].dropna().abs() < 1e-12).all() and same["diff"].notna().sum() >= 6
