"""`crseval shift validate RUN --human CRSArena-Dial`: the simulated users of a run against real users of
real CRSs, on the shared half of the arena's dialogues."""

import pandas as pd
import pytest

from tests.support.cli import crseval
from tests.support.runs import listed_figures

pytestmark = pytest.mark.slow  # two CLI runs and MiniLM on real data, ~25 s

CONFIG = """
seed = 2
sessions = 30
turns = 12
kb = "{kb}"
[[models]]
name = "template"
kind = "template"
[[models]]
name = "stubborn"
kind = "reference"
reference = "stubborn"
[judge]
enabled = false
"""


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    from tests.conftest import shared_path

    arena = shared_path("arena/crsarena_dial")
    kb = shared_path("opendialkg/opendialkg_movie_data.json")
    tmp = tmp_path_factory.mktemp("validity")
    cfg = tmp / "shift.toml"
    cfg.write_text(CONFIG.format(kb=kb))
    crseval("shift", "run", str(cfg), "--out", str(tmp / "run"))
    crseval(
        "shift", "validate", str(tmp / "run"), "--human", str(arena), "--n-boot", "300",
        "--max-turns", "600",
    )  # fmt: skip
    return tmp / "run" / "validity" / "tables", arena, tmp


def test_every_pillar_against_real_arena_users(validated):
    tables, _, _ = validated
    disc = pd.read_csv(tables / "shift_user_discriminator.csv")
    assert (
        len(disc) == 3 * 5
    )  # the floor and both CRSs' users, each read by every member of the panel
    floor = disc[disc["source"] == "human (split half)"]
    assert (floor["discriminator_auc_lo"] < 0.6).all()  # two halves of the same real users: near .5
    sims = disc[disc["compared"] == "simulated"]
    assert set(sims["source"]) == {"template", "stubborn"}
    assert (sims["discriminator_auc_lo"] <= sims["discriminator_auc"]).all()
    assert (sims["discriminator_auc"] <= sims["discriminator_auc_hi"]).all()
    repeats = pd.read_csv(tables / "shift_user_repeats.csv").set_index("source")
    assert set(repeats.index) == {"template", "stubborn", "real users"}
    assert repeats.loc["real users", "dialogues"] == 368  # those with a user turn
    cf = pd.read_csv(tables / "shift_user_counterfactual.csv").set_index("user_feature")
    assert (cf["real_pairs"] == 81).all()  # the shared battles both of whose dialogues are here
    # read as ReDial's seekers' forms are (the reaction reader), real users accept and reject as often with
    # the CRS they voted for as with the other; what clearly differs is how long they stay
    assert cf.loc["turns", "real_clear"] and cf.loc["turns", "real_diff"] > 0
    assert not cf.loc["accept", "real_clear"] and not cf.loc["reject", "real_clear"]
    assert cf.loc["reject", "sim_diff"] < 0 < cf.loc["accept", "sim_diff"]  # a CRS that follows
    ends = pd.read_csv(tables / "shift_user_outcomes.csv").set_index("source")
    assert ends.loc["template", "satisfied"] > ends.loc["stubborn", "satisfied"] + 0.3
    assert ends.loc["real: voted for", "satisfied"] > ends.loc["real: voted against", "satisfied"]
    align = pd.read_csv(tables / "shift_user_alignment.csv")
    assert set(align["user_feature"]) >= {"words", "question", "reject", "thanks", "turns"}
    assert "shift_user_realism" in listed_figures(tables.parent)


def test_a_bad_second_source_is_one_line_naming_the_option(validated):
    _, arena, tmp = validated
    bad = crseval(
        "shift", "validate", str(tmp / "run"), "--human", str(arena), "--also",
        str(tmp / "shift.toml"), check=False,
    )  # fmt: skip
    assert (
        bad.returncode == 2 and "--also" in bad.stderr and "not real users' dialogues" in bad.stderr
    )
    assert len(bad.stderr.strip().splitlines()) == 1


def test_one_crowd_of_the_reference_is_read_against_the_other(validated, tmp_path):
    _, arena, tmp = validated
    open_crowd = arena / "crs_arena_dial_open.json"
    out = crseval(
        "shift", "validate", str(tmp / "run"), "--human", str(arena), "--also", str(open_crowd),
        "--out", str(tmp_path / "crowds"), "--n-boot", "300", "--max-turns", "600",
    )  # fmt: skip
    assert "is part of the reference (206 of its 368 dialogues)" in " ".join(
        (out.stdout + out.stderr).split()
    )
    disc = pd.read_csv(tmp_path / "crowds" / "tables" / "shift_user_discriminator.csv")
    crowd = disc[disc["source"] == open_crowd.name].set_index("member")
    assert (crowd["compared"] == "human").all()
    assert crowd.loc["n-grams · dialogue", "real_units"] == 162  # the closed crowd only
    # the two crowds (free use vs recruited workers told to stay 5 exchanges) differ in length
    assert crowd.loc["shape · dialogue", "discriminator_auc_lo"] > 0.6
    whole = crseval(
        "shift", "validate", str(tmp / "run"), "--human", str(open_crowd), "--also",
        str(open_crowd), "--out", str(tmp_path / "same"), check=False,
    )  # fmt: skip
    assert whole.returncode == 2 and "holds every dialogue of the reference" in whole.stderr
    assert len(whole.stderr.strip().splitlines()) == 1


def test_the_card_measures_its_simulated_users_against_real_ones(validated, tmp_path):
    import json

    _, arena, _ = validated
    res = crseval(
        "evaluate-crs", "examples/my_crs.py", "--no-llm", "--human", str(arena), "--sessions", "30",
        "--turns", "8", "--n-boot", "200", "--out", str(tmp_path / "card"), "--format", "json",
    )  # fmt: skip
    notes = json.loads(res.stdout.split("\nreport:")[0])["notes"]
    users = next(n for n in notes if n.startswith("Simulated users"))
    assert "measured in this run" in users and "template" in users
    repeats = pd.read_csv(tmp_path / "card" / "validity" / "tables" / "shift_user_repeats.csv")
    share = repeats.set_index("source")["repeated_share"]
    said = users.split("word for word in another dialogue: ")[1]
    assert f"template {share['template']:.0%}" in said
    assert f"(real users {share['real users']:.0%})" in said
    assert (tmp_path / "card" / "validity" / "tables" / "shift_user_discriminator.csv").exists()


def test_the_follower_and_the_ignorer_are_options(validated):
    from crseval.adaptation.job import sessions
    from crseval.adaptation.user_validity import read_reference, user_validity
    from crseval.adaptation.validate_config import ValidateConfig
    from crseval.data.kb import load_kb
    from crseval.runs.store import RunStore
    from crseval.text.embed import get_embedder
    from tests.conftest import shared_path

    tables, arena, tmp = validated
    records = [r for r in sessions(RunStore(tmp / "run")) if r["turns"]]
    kb = load_kb(shared_path("opendialkg/opendialkg_movie_data.json"))
    config = ValidateConfig(
        run=tmp / "run", follower="stubborn", ignorer="template", max_turns=300, n_boot=100
    )
    swapped, _ = user_validity(records, kb, read_reference(str(arena)), get_embedder(), config)
    cf = pd.read_csv(tables / "shift_user_counterfactual.csv").set_index("user_feature")
    flipped = swapped["shift_user_counterfactual"].set_index("user_feature")
    assert flipped.loc["reject", "sim_diff"] == pytest.approx(-cf.loc["reject", "sim_diff"])
