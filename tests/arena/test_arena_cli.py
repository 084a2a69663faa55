"""`crseval arena` on the CRSArena-Dial votes, synthetic dialogues and bad files."""

import json

import pandas as pd
import pytest

from tests.support.cli import crseval


def test_open_and_closed_crowds(shared, tmp_path, figures):
    open_, closed = (
        shared("arena/crsarena_dial/votes_open.csv"),
        shared("arena/crsarena_dial/votes_closed.csv"),
    )
    res = crseval(
        "arena",
        str(open_),
        str(closed),
        "--n-boot",
        "100",
        "--out",
        str(tmp_path / "a"),
        "--format",
        "json",
    )
    rows = json.loads(res.stdout)["result"]
    assert len(rows) == 9 and {r["vote_set"] for r in rows} == {"combined"}
    assert all(r["bt_lo"] <= r["bt"] <= r["bt_hi"] for r in rows)
    assert sum(r["wins"] + r["losses"] + r["ties"] for r in rows) == 2 * 185
    ratings = pd.read_csv(tmp_path / "a" / "tables" / "arena_ratings.csv")
    assert set(ratings["vote_set"]) == {"votes_open", "votes_closed", "combined"}
    # the arena's Elo is zero-sum around 1000: its mean over systems stays 1000
    assert ratings.groupby("vote_set")["elo"].mean().tolist() == pytest.approx([1000] * 3)
    agree = pd.read_csv(tmp_path / "a" / "tables" / "arena_agreement.csv").iloc[0]
    assert agree["elo_pearson"] == pytest.approx(
        0.76, abs=0.005
    )  # the two crowds' Elo agree only .76
    assert agree["pearson_lo"] < agree["pearson"] < agree["pearson_hi"]
    assert (tmp_path / "a" / "figures" / "arena_ratings.png").exists()


def test_satisfaction_from_the_arenas_dialogue_layout(tmp_path):
    votes = tmp_path / "votes.csv"
    votes.write_text(
        "session_id,user_id,crs1,crs2,vote,feedback\n"
        + "".join(
            f"t{i},u{i},{a},{b},{v},\n"
            for i, (a, b, v) in enumerate(
                [
                    ("x", "y", "x"),
                    ("y", "z", "y"),
                    ("x", "z", "x"),
                    ("x", "y", "tie"),
                    ("z", "x", "x"),
                ]
                * 3
            )
        )
    )
    dialogues = [
        {
            "conversation ID": f"{crs}_u{k}",
            "agent": {"id": crs},
            "user": {"id": f"u{k}"},
            "conversation": [
                {"participant": "USER", "utterance": "hi", "utterance ID": 0},
                {"participant": "AGENT", "utterance": "hello", "utterance ID": 1},
            ],
            "metadata": {"sentiment": "satisfied" if k < n else "frustrated"},
        }
        for crs, n in [("x", 3), ("y", 2), ("z", 1)]
        for k in range(4)
    ]
    (tmp_path / "dial.json").write_text(json.dumps(dialogues))
    res = crseval(
        "arena",
        str(votes),
        "--dialogues",
        str(tmp_path / "dial.json"),
        "--n-boot",
        "50",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    rows = {r["system"]: r for r in json.loads(res.stdout)["result"]}
    assert rows["x"]["satisfaction"] == 0.75 and rows["z"]["satisfaction"] == 0.25
    assert rows["x"]["satisfaction_lo"] < 0.75 < rows["x"]["satisfaction_hi"]
    sat = pd.read_csv(tmp_path / "r" / "tables" / "arena_satisfaction_agreement.csv")
    assert sat.loc[0, "spearman"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "body, words",
    [
        ("crs1,crs2,vote\na,b,c\n", "vote 'c' is neither system"),
        ("crs1,crs2,vote\na,a,a\n", "voted against itself"),
        ("crs1,crs2\na,b\n", "missing column 'vote'"),
        ("crs1,crs2,vote\n", "no votes"),
    ],
)
def test_bad_vote_files(tmp_path, body, words):
    p = tmp_path / "v.csv"
    p.write_text(body)
    res = crseval("arena", str(p), "--out", str(tmp_path / "x"), check=False)
    assert res.returncode == 2 and words in res.stderr and "Traceback" not in res.stderr


def test_davidson_ties(tmp_path):
    votes = tmp_path / "votes.csv"
    votes.write_text("crs1,crs2,vote\n" + "x,y,x\ny,z,tie\nx,z,tie\nz,x,x\ny,x,tie\n" * 4)
    res = crseval(
        "arena",
        str(votes),
        "--ties",
        "davidson",
        "--n-boot",
        "30",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    rows = {r["system"]: r for r in json.loads(res.stdout)["result"]}
    assert rows["x"]["rank"] == 1 and rows["x"]["bt_lo"] <= rows["x"]["bt"] <= rows["x"]["bt_hi"]
    ratings = pd.read_csv(tmp_path / "r" / "tables" / "arena_ratings.csv")
    assert ratings["davidson_nu"].iloc[0] > 0.5  # 12 of 20 votes are ties
    assert "davidson(mle" in (tmp_path / "r" / "signature.json").read_text()


def test_the_bundled_votes_by_name(tmp_path):
    """`arena rank sample`, as the other commands read the bundled sample by name."""
    from crseval.data.bundled import sample_dir

    res = crseval(
        "arena", "rank", "sample", "--n-boot", "100", "--out", tmp_path, "--format", "json"
    )
    systems = {r["system"] for r in json.loads(res.stdout)["result"]}
    votes = pd.read_csv(sample_dir() / "votes.csv")
    assert systems == set(votes["crs1"]) | set(votes["crs2"])
