import numpy as np
import pandas as pd
import pytest

from crseval.core.types import Item
from crseval.data.base import SerendipityStudy
from crseval.data.io import DatasetInfo
from crseval.llm import LLMClient, ResponseCache
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore
from crseval.serendipity.evaluator import Aux, LLMEvaluator, few_shot, llm_scores, request


def study():
    items = {
        m: Item(m, t, {"genres": g})
        for m, t, g in [
            ("1", "Heat (1995)", ["Crime", "Thriller"]),
            ("2", "Toy Story (1995)", ["Animation", "Comedy"]),
            ("3", "Alien (1979)", ["Horror", "Sci-Fi"]),
            ("4", "Amelie (2001)", ["Comedy", "Romance"]),
        ]
    }
    a = pd.DataFrame(
        {
            "user": ["u1", "u1", "u1", "u2", "u2", "u3"],
            "item": ["1", "2", "3", "4", "1", "2"],
            "rating": [4.0, 3.0, 5.0, 2.0, 4.5, 3.0],
            "timestamp": [3, 1, 2, 1, 2, 1],
            "ground_truth": [2.0, 4.0, 3.0, 1.0, 5.0, 3.0],
            "C1": [3, 3, 3, 2, 2, 1],
            "P1": [5, 5, 5, 4, 4, 2],
        }
    )
    return SerendipityStudy(DatasetInfo("toy", "-", "0"), a, items, "toy")


@pytest.mark.parametrize(
    "flag,marker",
    [
        ("popularity", "of the users in this study rated"),
        ("similarity", "Jaccard distance"),
        ("curiosity", "curiosity self-assessment"),
        ("personality", "personality self-assessment"),
        ("interaction", "explicit ratings"),
        ("profiles", "Your profile"),
    ],
)
def test_each_auxiliary_switch_adds_its_block_and_only_then(flag, marker):
    s = study()
    row = s.answers.iloc[0]
    on = (
        request(s, row, Aux(**{flag: True}), profile="Likes thrillers; lately animation.")
        .messages[-1]
        .content
    )
    off = request(s, row, Aux()).messages[-1].content
    assert marker in on
    assert marker not in off
    assert "The platform now recommends: Heat (1995) (Crime, Thriller)." in off
    assert off.index("Toy Story") < off.index("Alien")  # the earlier ratings, oldest first


def test_few_shot_never_contains_the_target_user():
    s = study()
    for seed in range(20):
        ex = few_shot(s, "u1", 3, seed)
        assert len(ex) == 3
        assert all(e["user"] != "u1" for e in ex)
    req = request(s, s.answers.iloc[0], Aux(), few_shot(s, "u1", 2, 0))
    assert [m.role for m in req.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


def test_runs_are_averaged_recorded_and_cached(tmp_path):
    s = study()
    store = RunStore(tmp_path / "run")
    backend = ScriptedBackend()
    client = LLMClient(backend, ResponseCache(store.cache_path))
    scores = llm_scores(s, LLMEvaluator(client, store, runs=3, shots=1))
    assert scores.shape == (6,)
    assert np.all((scores >= 1) & (scores <= 5))
    assert len(store.records("serendipity_llm")) == 18
    n = len(backend.calls)
    again = llm_scores(
        s,
        LLMEvaluator(
            LLMClient(ScriptedBackend([]), ResponseCache(store.cache_path)),
            RunStore(tmp_path / "run"),
            runs=3,
            shots=1,
        ),
    )
    assert np.allclose(again, scores)
    assert len(backend.calls) == n  # a re-run asks nothing


def test_rows_restrict_what_is_rated_but_not_the_history(tmp_path):
    s = study()
    store = RunStore(tmp_path / "r")
    scores = llm_scores(s, LLMEvaluator(LLMClient(ScriptedBackend()), store, runs=1), rows=[2])
    assert np.isnan(scores[[0, 1, 3, 4, 5]]).all()
    assert np.isfinite(scores[2])
    (rec,) = store.records("serendipity_llm")
    assert rec["row"] == 2


def test_profiles_are_summarised_from_the_past_of_each_answer(tmp_path):
    s = study()
    backend = ScriptedBackend()
    llm_scores(
        s,
        LLMEvaluator(LLMClient(backend), RunStore(tmp_path / "p"), aux=Aux(profiles=True), runs=1),
    )
    summaries = [
        c.messages[-1].content
        for c in backend.calls
        if "long-term tastes" in c.messages[-1].content
    ]
    # one per answer with an earlier rating: u1/Heat (t3), u1/Alien (t2), u2/Heat (t2)
    assert len(summaries) == 3
    assert any(
        "Toy Story" in m and "Alien" in m for m in summaries
    )  # u1/Heat: both earlier ratings
    assert not any("Heat" in m for m in summaries)  # Heat is never anyone's past
    rated = [c.messages[-1].content for c in backend.calls if c.choices]
    assert (
        sum("Your profile (summarised from your history): Scripted reply" in m for m in rated) == 3
    )
