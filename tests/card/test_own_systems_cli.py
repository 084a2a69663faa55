"""Your CRS against your CRS: `evaluate-crs v2 --against v1=…,template` puts your own systems on the same
simulated users and contexts as the references, one paired column each (Holm-adjusted stars)."""

import json
import re
from pathlib import Path

import numpy as np
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
    assert {"my_crs_v2", "v1", "template", "stubborn"} <= set(sessions["system"])
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
    # each score is read on the units the difference rests on, so the three agree
    assert np.allclose(got["my_crs_v2"] - got["my_crs"], got["diff"], equal_nan=True)
    shown = crseval("compare", v1, out, columns=80)
    table = shown.stdout.split("\ncrseval:")[0]  # the signature line follows (crseval:0.2.0|…)
    assert not re.search(r"(?<![\d.])0\.\d", table), table  # two decimals, no raw floats
    assert "+.0" in shown.stdout and "(Holm)" in shown.stdout
    assert "Holm-adjusted over the 8 card metrics compared here" in shown.stderr
    assert "each metric's comparisons with its references" in shown.stderr
    res = crseval("compare", v1, out, "--systems", "my_crs,nope", check=False)
    assert res.returncode == 2 and "'nope' is not on the card" in res.stderr
    res = crseval("compare", v1, out, "--systems", "template,template", "--format", "json")
    same = pd.DataFrame(
        json.loads(res.stdout)["result"]
    )  # one reference on both cards: the same sessions
    assert (same["diff"].dropna().abs() < 1e-12).all() and same["diff"].notna().sum() >= 6


COMMON = """import json, re, zlib
MOVIES = json.load(open({movies!r}, encoding="utf-8")).values()
ODD = re.compile(r"[\\"'.&¡!:,/*+()-]")
BY_GENRE = {{}}
for m in MOVIES:
    for g in m.get("genre", []):
        BY_GENRE.setdefault(g, []).append(m["name"])
for g in BY_GENRE:  # the titles hardest to read first: quotes, ellipses, "¡", brackets
    BY_GENRE[g].sort(key=lambda t: (not ODD.search(t), zlib.crc32(t.encode())))

def wanted(history):
    for turn in reversed(history):
        if turn["speaker"] == "user":
            for g in BY_GENRE:
                if g in turn["text"].lower():
                    return g
"""
NEWCOMER = {
    "v1": """from crs_common import BY_GENRE, wanted

def respond(history):
    g = wanted(history)
    if g is None:
        return "What genre do you feel like?"
    title = BY_GENRE[g][sum(t["speaker"] == "system" for t in history) % 5]
    return f"How about {title}? It is a great {g} movie."
""",
    "v2": """from crs_common import BY_GENRE, wanted

def respond(history):
    g = wanted(history)
    if g is None:
        return "What genre do you feel like?"
    before = " ".join(t["text"] for t in history if t["speaker"] == "system")
    fresh = [t for t in BY_GENRE[g] if t not in before][:3]
    shown = [f'"{t}"' if i == 1 else f"**{t}**" for i, t in enumerate(fresh)]
    return f"Here are some {g} movies you might enjoy:\\n" + "\\n".join(
        f"{i}. {t}" for i, t in enumerate(shown, 1)
    )
""",
}


def test_a_newcomers_two_versions_naming_catalogue_titles_are_never_out_of_catalogue(tmp_path):
    """The newcomer of #77: v1 and v2 of a CRS in two files each, in two folders, naming ReDial's titles
    copied from its catalogue — the hardest to read first ("Crocodile" Dundee, ...And Justice for All,
    ¡Three Amigos!), in a sentence, quoted and bolded in a numbered list: none is out of catalogue."""
    from tests.conftest import shared_path

    redial = shared_path("redial")
    for v, code in NEWCOMER.items():
        (tmp_path / v).mkdir()
        (tmp_path / v / "crs_common.py").write_text(
            COMMON.format(movies=str(redial / "movies_id2info.json")), encoding="utf-8"
        )
        (tmp_path / v / f"crs_{v}.py").write_text(code, encoding="utf-8")
    out = tmp_path / "card"
    crseval(
        "evaluate-crs", tmp_path / "v2" / "crs_v2.py", "--against",
        f"v1={tmp_path / 'v1' / 'crs_v1.py'},template", "--kb", redial, "--no-llm", *SMALL,
        "--out", out,
    )  # fmt: skip
    scores = pd.read_csv(out / "tables" / "card_scores.csv")
    ooc = scores[scores["metric"] == "dialogues.out_of_catalogue_rate"].set_index("system")
    assert ooc.loc["crs_v2", "n"] > 0 and ooc.loc["v1", "n"] > 0
    assert ooc.loc["crs_v2", "mean"] == 0 and ooc.loc["v1", "mean"] == 0
    turns = pd.read_parquet(out / "dialogues" / "tables" / "dialogue_turns.parquet")
    named = turns[turns["system"].isin(["crs_v2", "v1"])]
    titles = {t.strip() for s in named["titles"].dropna() for t in s.split(";") if t.strip()}
    hard = [t for t in titles if re.search(r"[\"'.&¡!:,/]", t)]
    assert len(hard) >= 5, sorted(titles)  # the hard ones were named, each read as written
    assert not any(t.startswith("*") for t in titles)
