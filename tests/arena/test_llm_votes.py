"""LLM pairwise votes: pairing by request, both orders, ties on position bias, resumable records; through
`crseval arena --llm-votes` into the same Bradley–Terry model."""

import json

import pandas as pd
import pytest

from crseval.arena.llm_votes import dialogue_pairs, llm_votes
from crseval.core.types import Dialogue, Role, Utterance
from crseval.llm import LLMClient
from crseval.llm.base import ChatResponse
from crseval.llm.scripted import ScriptedBackend
from crseval.runs.store import RunStore
from tests.support.cli import crseval


def _d(did, request, reply):
    return Dialogue.from_utterances(
        did, [Utterance(Role.USER, request), Utterance(Role.SYSTEM, reply)]
    )


ITEMS = [
    ("g1", "good", _d("g1", "Any sci-fi?", "Try Inception.")),
    ("b1", "bad", _d("b1", "any SCI-FI", "No.")),
    ("g2", "good", _d("g2", "A comedy please", "Try Airplane!")),
    ("b2", "bad", _d("b2", "A comedy, please.", "No.")),
    ("x", "bad", _d("x", "Something else", "No.")),
]


def _prefers_try(req):
    """P(conversation 2 is better) high when the second conversation holds the recommendation."""
    text = req.messages[-1].content
    second_good = "Try" in text.split("<conversation 2>")[1]
    p2 = 0.8 if second_good else 0.2
    return ChatResponse("2" if second_good else "1", choice_probs={"1": 1 - p2, "2": p2})


def test_pairs_share_the_request_and_differ_in_system():
    pairs = dialogue_pairs(ITEMS, 10, 0)
    assert {(a[0], b[0]) for a, b in pairs} == {("b1", "g1"), ("b2", "g2")}
    assert len(dialogue_pairs(ITEMS, 1, 0)) == 1


def test_votes_both_orders_and_resume(tmp_path):
    store = RunStore(tmp_path / "run")
    votes = llm_votes(dialogue_pairs(ITEMS, 10, 0), LLMClient(ScriptedBackend(_prefers_try)), store)
    assert votes["vote"].tolist() == ["good", "good"]
    assert votes["p_crs1_first"].tolist() == pytest.approx(
        [0.2, 0.2]
    )  # crs1 = bad, read first, P(bad better)
    assert votes["position_consistent"].all()
    again = LLMClient(ScriptedBackend([]))  # nothing left to ask: every answer is a record
    assert llm_votes(dialogue_pairs(ITEMS, 10, 0), again, store)["vote"].tolist() == [
        "good",
        "good",
    ]


def test_a_position_biased_judge_casts_ties(tmp_path):
    first_wins = ScriptedBackend(lambda req: ChatResponse("1", choice_probs={"1": 0.9, "2": 0.1}))
    votes = llm_votes(
        dialogue_pairs(ITEMS, 10, 0), LLMClient(first_wins), RunStore(tmp_path / "run")
    )
    assert votes["vote"].tolist() == ["tie", "tie"] and not votes["position_consistent"].any()


def test_arena_with_llm_votes_on_the_arenas_dialogues(tmp_path):
    requests = ["Any sci-fi?", "A comedy please", "Something scary", "A western?"]
    replies = {"x": "Try Alien (1979).", "y": "Maybe.", "z": "No idea."}
    convs = [
        {
            "conversation ID": f"{crs}_{k}",
            "agent": {"id": crs},
            "conversation": [
                {"participant": "USER", "utterance": r},
                {"participant": "AGENT", "utterance": replies[crs]},
            ],
            "metadata": {"sentiment": "satisfied" if crs == "x" else "frustrated"},
        }
        for crs in replies
        for k, r in enumerate(requests)
    ]
    (tmp_path / "dial.json").write_text(json.dumps(convs))
    (tmp_path / "votes.csv").write_text("crs1,crs2,vote\n" + "x,y,x\ny,z,y\nx,z,x\n" * 3)
    res = crseval(
        "arena",
        str(tmp_path / "votes.csv"),
        "--dialogues",
        str(tmp_path / "dial.json"),
        "--llm-votes",
        "--backend",
        "scripted",
        "--n-boot",
        "50",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "json",
    )
    assert "plan:" in res.stderr
    votes = pd.read_csv(tmp_path / "r" / "tables" / "arena_llm_votes.csv")
    assert len(votes) == 12 and set(votes["session"].str.split("~").str[0].str[0]) <= {"x", "y"}
    ratings = pd.read_csv(tmp_path / "r" / "tables" / "arena_ratings.csv")
    assert {"votes", "llm"} == set(
        ratings["vote_set"]
    )  # LLM votes are compared, never pooled with people's
    agree = pd.read_csv(tmp_path / "r" / "tables" / "arena_agreement.csv")
    assert agree.iloc[0][["vote_set_a", "vote_set_b"]].tolist() == ["votes", "llm"]
    sig = json.loads((tmp_path / "r" / "signature.json").read_text())
    assert "scripted" in json.dumps(sig["llm"])


def test_llm_votes_need_dialogues(tmp_path):
    (tmp_path / "votes.csv").write_text("crs1,crs2,vote\nx,y,x\n")
    res = crseval(
        "arena",
        str(tmp_path / "votes.csv"),
        "--llm-votes",
        "--backend",
        "scripted",
        "--out",
        str(tmp_path / "r"),
        check=False,
    )
    assert res.returncode == 2 and "--dialogues" in res.stderr
