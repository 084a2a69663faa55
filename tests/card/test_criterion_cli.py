"""`crseval criterion`: the card's metrics against real users' own verdicts, on a small arena written here
(three CRSs of known behaviour, users who say what they felt) and on CRSArena-Dial where it is shared."""

import json

import pandas as pd
import pytest

from tests.conftest import shared_path
from tests.support.cli import crseval

WISHES = [
    ("comedy", "Bridesmaids"),
    ("horror", "Hereditary"),
    ("romance", "Titanic"),
    ("war", "Saving Private Ryan"),
]
REPLIES = {  # a CRS's reply to a wish for (genre, a film of it)
    "follower_x": lambda genre, film: f"You might like {film}, a great {genre}.",
    "offtopic_y": lambda genre, film: "How about The Godfather?",
    "silent_y": lambda genre, film: "I am not sure what you mean.",
}
FELT = {"follower_x": "satisfied", "offtopic_y": "frustrated", "silent_y": "frustrated"}


def arena(folder, users: int = 24):
    """An arena in CRSArena-Dial's layout: every user meets all three CRSs and votes in two battles."""
    folder.mkdir()
    convs, votes = [], ["session_id,user_id,crs1,crs2,vote,feedback"]
    for u in range(users):
        genre, film = WISHES[u % len(WISHES)]
        for crs, reply in REPLIES.items():
            felt = FELT[crs] if u % 6 else {"satisfied": "frustrated"}.get(FELT[crs], "satisfied")
            convs.append(
                {
                    "conversation ID": f"{crs}_user{u}",
                    "agent": {"id": crs},
                    "user": {"id": f"user{u}"},
                    "conversation": [
                        {"participant": "USER", "utterance": f"Hi! I want a {genre} movie."},
                        {"participant": "AGENT", "utterance": reply(genre, film)},
                        {"participant": "USER", "utterance": "Anything else?"},
                        {"participant": "AGENT", "utterance": reply(genre, film)},
                    ],
                    "metadata": {"sentiment": felt},
                }
            )
        votes.append(f"t{u},user{u},follower_x,offtopic_y,{'follower_x' if u % 5 else 'tie'},")
        votes.append(f"t{u}b,user{u},silent_y,offtopic_y,{'offtopic_y' if u % 2 else 'silent_y'},")
    (folder / "crs_arena_dial_open.json").write_text(json.dumps(convs), encoding="utf-8")
    (folder / "votes_open.csv").write_text("\n".join(votes) + "\n", encoding="utf-8")
    (folder / "published_elo.csv").write_text(
        "crowd,system,rank,elo\nopen,follower_x,1,1100\nopen,offtopic_y,2,1000\nopen,silent_y,3,900\n"
        "global,follower_x,1,1\n",
        encoding="utf-8",
    )
    return folder


def test_the_metric_that_reads_what_users_asked_for_predicts_their_labels_and_votes(tmp_path):
    data = arena(tmp_path / "arena")
    out = tmp_path / "run"
    res = crseval(
        "criterion", data / "crs_arena_dial_open.json", "--catalog", "x=sample,y=sample",
        "--n-boot", "200", "--out", out, columns=80,
    )  # fmt: skip
    assert "wishes followed" in res.stdout
    # at 80 columns every question shows, each with its CI and count: labels, votes, ranking
    assert "more column(s) than fit" not in res.stderr
    assert all(
        h in res.stdout for h in ("AUC", "share", "ranking (τ)", "1.00] · 19", "+.82 [+.82,")
    )
    table = pd.read_csv(out / "tables" / "criterion.csv").set_index("metric")
    wish = table.loc["shift.follow.wish_rate"]
    # follower_x always follows, 20 of its 24 users are satisfied; the others never do, 4 of 24 satisfied:
    # of the 28 × 44 (satisfied, frustrated) pairs, 20 × 40 won, 20 × 4 + 8 × 40 tied, 8 × 4 lost
    assert wish["label_auc"] == pytest.approx((800 + (80 + 320) / 2) / (28 * 44))
    assert wish["label_auc_lo"] > 0.5 and wish["dialogues"] == 72
    assert (
        wish["vote_agreement"] == 1 and wish["battles"] == 19
    )  # 5 ties; the second battles: neither follows
    # τ-b: 2 concordant pairs, the third tied in the metric (the two others at 0): 2 / √(2 · 3)
    assert wish["ranking_tau"] == pytest.approx(2 / 6**0.5)
    assert wish["ranked_by"] == "published Elo (open)" and wish["systems"] == 3
    assert wish["criterion_verdict"].startswith("predicts (meets the bar)")
    assert not table.loc["dialogues.novelty", "on_card"] and table.loc["shift.tas", "on_card"]
    units = pd.read_csv(out / "tables" / "criterion_dialogues.csv")
    assert len(units) == 72 and set(units["user"]) == {f"user{u}" for u in range(24)}
    # each CRS grounded in its own catalogue: a part per catalogue, fed only its CRSs' dialogues
    assert set(pd.read_csv(out / "dialogues-x" / "tables" / "dialogue_metrics.csv")["system"]) == {
        "follower_x"
    }
    assert (out / "shift-y" / "report.html").is_file()
    assert "Meets the bar (AUC ≥ .70 and ≥ 65 % of battles): wishes followed" in (
        out / "report.html"
    ).read_text(encoding="utf-8")


def test_bad_input_is_named_in_one_line(tmp_path):
    data = arena(tmp_path / "arena", users=6)
    bad = crseval("criterion", data, "--catalog", "x=sample", "--out", tmp_path / "a", check=False)
    assert bad.returncode != 0 and "no catalogue for 'offtopic_y'" in bad.stderr
    bad = crseval(
        "criterion", data, "--catalog", "sample", "--label", "happy", "--out", tmp_path / "b",
        check=False,
    )  # fmt: skip
    assert "no label 'happy'" in bad.stderr and "one of: satisfied" in bad.stderr
    bad = crseval("criterion", data, "--catalog", "x=", "--out", tmp_path / "c", check=False)
    assert bad.returncode != 0 and "catalogue entry 'x='" in bad.stderr
    (tmp_path / "torn.json").write_text("[{", encoding="utf-8")
    for path, says in (
        (tmp_path / "none", "dialogues not found"),
        (tmp_path / "torn.json", "JSON"),
    ):
        bad = crseval(
            "criterion",
            path,
            "--catalog",
            "x=sample,y=sample",
            "--out",
            tmp_path / "d",
            check=False,
        )
        assert bad.returncode != 0 and says in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow  # four parts on 368 real dialogues: ~45 s
def test_on_crsarena_dial_the_default_command_reports_what_the_users_wished_for(tmp_path):
    """The figures every card ships are re-measured against their record by the validity gate
    (`make validate`, check `criterion`); this test reads the report and the wish gaps."""
    data = shared_path("arena/crsarena_dial")
    catalog = f"redial={shared_path('redial')},opendialkg={shared_path('opendialkg')}"
    out = tmp_path / "run"
    crseval("criterion", data, "--catalog", catalog, "--out", out)
    table = pd.read_csv(out / "tables" / "criterion.csv").set_index("metric")
    assert table["dialogues"].max() == 366 and table["systems"].eq(9).all()  # 2 without a reply
    assert (table["battles"] + table["battles_tied"]).max() == 81
    report = (out / "report.html").read_text(encoding="utf-8")
    quiet = 366 - table.loc["dialogues.out_of_catalogue_rate", "dialogues"]  # naming no title
    assert "No metric meets the bar" in report and f"undefined on the {quiet} dialogues" in report
    gaps = pd.read_csv(out / "tables" / "wish_gaps.csv")
    assert gaps["user_requests"].sum() == 968 and gaps["request_share"].sum() == pytest.approx(1)


def test_votes_and_ranking_named_elsewhere_and_the_judges_aspects(tmp_path):
    """--votes and --elo for dialogues without them beside (a file of any name: the global ranking);
    --judge adds the judge's aspects (the scripted backend stands in for the LLM)."""
    folder = arena(tmp_path / "arena", users=6)
    data = tmp_path / "mine.json"
    data.write_text((folder / "crs_arena_dial_open.json").read_text(encoding="utf-8"))
    elo = tmp_path / "elo.csv"
    elo.write_text("system,elo\nfollower_x,900\nofftopic_y,1000\nsilent_y,1100\n", encoding="utf-8")
    out = tmp_path / "run"
    crseval(
        "criterion", data, "--catalog", "sample", "--votes", folder / "votes_open.csv", "--elo",
        elo, "--judge", "--backend", "scripted", "--n-boot", "100", "--out", out,
    )  # fmt: skip
    table = pd.read_csv(out / "tables" / "criterion.csv").set_index("metric")
    wish = table.loc["shift.follow.wish_rate"]
    assert wish["battles"] == 4 and wish["vote_agreement"] == 1  # 6 users, users 0 and 5 tied
    assert wish["ranking_tau"] < 0 and wish["ranked_by"] == "published Elo (global)"  # reversed Elo
    assert {"shift.personalization", "shift.proactiveness", "shift.coherence"} <= set(table.index)
    assert table.loc["shift.personalization", "on_card"]
    without = crseval("criterion", data, "--catalog", "sample", "--out", tmp_path / "r2")
    assert (
        "mean satisfied"
        in pd.read_csv(tmp_path / "r2" / "tables" / "criterion.csv")["ranked_by"].iloc[0]
        and "judge" not in without.stdout
    )


def test_no_criterion_verdict_from_a_handful_of_dialogues_or_battles():
    """A study's first participants: 8 dialogues and 1 decided battle read "predicts (meets the bar)"."""
    from crseval.card.criterion_tables import _verdict
    from crseval.stats.criterion import Agreement
    from crseval.stats.paired import MIN_GROUP, Estimate

    perfect = Estimate(1.0, 1.0, 1.0, 8)
    assert _verdict(perfect, Agreement(1.0, 1.0, 1.0, 0.0, 1, 0)) == "not shown"
    assert (
        _verdict(Estimate(1.0, 1.0, 1.0, MIN_GROUP - 1), Agreement(1.0, 1.0, 1.0, 0.0, 50, 0))
        == "not shown"
    )
    assert _verdict(perfect, Agreement(1.0, 1.0, 1.0, 0.0, MIN_GROUP, 0)).startswith("predicts")
