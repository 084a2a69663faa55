"""An evaluator never sees what it is asked to predict (SerenEva's protocol), and sampling chooses which
answers to score, never what the evaluator knows about them. Each test here fails on the code before
the fix (see the issue note: future items in 6,380 of 8,294 prompts, click/purchase in Taobao prompts,
sampled proxies moved by up to 2 Likert points)."""

import tempfile
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from crseval.core.errors import CrsevalError
from crseval.core.types import Item
from crseval.data.base import SerendipityStudy
from crseval.data.io import DatasetInfo
from crseval.llm import LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore
from crseval.serendipity import evaluator
from crseval.serendipity.context import history, item_popularity, item_text, popularity
from crseval.serendipity.evaluator import Aux, LLMEvaluator, llm_scores
from crseval.serendipity.job import predictions, sample_rows, subset
from crseval.serendipity.proxies import features

ALL_AUX = Aux(popularity=True, similarity=True, interaction=True, profiles=True)
PROXIES = ["random", "sog", "snpr", "purs", "desr"]
REAL_REQUEST, REAL_PROFILE = evaluator.request, evaluator.profile_request


def toy() -> SerendipityStudy:
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
            "user": ["u1", "u1", "u1", "u1", "u2", "u2"],
            "item": ["1", "2", "3", "4", "4", "1"],
            "rating": [4.0, 3.0, 5.0, 2.0, 2.0, 4.5],
            "timestamp": [3, 1, 2, 2, 1, 2],
            "predicted_rating": [4.0, 3.5, 4.5, 3.0, 3.0, 4.0],
            "ground_truth": [2.0, 4.0, 3.0, 1.0, 5.0, 3.0],
        }
    )
    return SerendipityStudy(
        DatasetInfo("toy", "-", "0"), a, items, "toy", outcomes=("ground_truth", "rating")
    )


def test_history_is_strictly_before_the_target_oldest_first():
    s = toy()
    assert list(history(s, "u1", "1", k=10)["item"]) == ["2", "3", "4"]  # timestamps 1, 2, 2 < 3
    assert list(history(s, "u1", "1", k=1)["item"]) == ["4"]
    assert list(history(s, "u1", "3", k=10)["item"]) == [
        "2"
    ]  # "4" shares its timestamp: not before it
    assert history(s, "u1", "2", k=10).empty  # the user's first answer has no past


def test_popularity_is_the_share_of_users_who_rated_the_item():
    assert popularity(toy()).to_dict() == {"1": 1.0, "2": 0.5, "3": 0.5, "4": 1.0}
    assert [item_popularity(toy(), i) for i in ("1", "2", "3", "4", "none")] == [1, 0.5, 0.5, 1, 0]
    prompt = (
        evaluator.request(toy(), toy().answers.iloc[2], Aux(popularity=True)).messages[-1].content
    )
    assert "(Popularity: 50.0 % of the users in this study rated this movie.)" in prompt


def _recorded_prompts(study, monkeypatch, aux, rows=None, shots=0):
    """Every prompt a run sends, by answer index: the rating prompts and the profile prompts."""
    rated, profiled = {}, {}

    def rec_request(st, row, *a, **k):
        req = REAL_REQUEST(st, row, *a, **k)
        rated[int(row.name)] = req.messages[-1].content
        return req

    def rec_profile(st, user, item):
        req = REAL_PROFILE(st, user, item)
        if req is not None:
            profiled[(user, item)] = req.messages[-1].content
        return req

    monkeypatch.setattr(evaluator, "request", rec_request)
    monkeypatch.setattr(evaluator, "profile_request", rec_profile)
    with tempfile.TemporaryDirectory() as d:
        llm_scores(
            study,
            LLMEvaluator(LLMClient(ScriptedBackend()), RunStore(d), aux=aux, runs=1, shots=shots),
            rows=rows,
        )
    return rated, profiled


def _walk(study, rated, profiled, k):
    """Count prompts that show the target, a later item, or more than k items."""
    a = study.answers
    bad = []
    for idx, prompt in rated.items():
        user, ts = a.at[idx, "user"], a.at[idx, "timestamp"]
        mine = a[a["user"] == user]
        shown = [f"- {item_text(study, i)} — you rated" for i in mine["item"]]
        later = [
            f"- {item_text(study, i)} — you rated"
            for i in mine.loc[mine["timestamp"] >= ts, "item"]
        ]
        profile = profiled.get((user, a.at[idx, "item"]), "")
        if (
            any(
                line in prompt or line.replace(" — you rated", " — rated") in profile
                for line in later
            )
            or sum(line in prompt for line in shown) > k
        ):
            bad.append(idx)
    return bad


def test_no_prompt_of_a_toy_run_sees_the_target_or_later_items(monkeypatch):
    s = toy()
    rated, profiled = _recorded_prompts(s, monkeypatch, ALL_AUX)
    assert sorted(rated) == list(range(6))
    assert _walk(s, rated, profiled, k=10) == []
    assert "Heat" not in rated[2] and "Amelie" not in rated[2] and "Toy Story" in rated[2]


@pytest.mark.slow
def test_every_prompt_of_a_full_serendipity2018_run_sees_only_the_past(shared, monkeypatch):
    from crseval.data import load_dataset

    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    rated, profiled = _recorded_prompts(s, monkeypatch, ALL_AUX)
    assert len(rated) == len(s.answers)
    assert _walk(s, rated, profiled, k=10) == []
    assert sum("before this recommendation (oldest first)" in p for p in rated.values()) > 1000


def _perturb_target_and_future(study: SerendipityStudy, idx: int, seed: int) -> SerendipityStudy:
    """The same study with the target's outcomes and every later answer of its user replaced."""
    rng = np.random.default_rng(seed)
    a = study.answers.copy()
    for c in study.outcomes:
        a.at[idx, c] = float(rng.integers(1, 6))
    user, ts = a.at[idx, "user"], a.at[idx, "timestamp"]
    later = a.index[(a["user"] == user) & (a["timestamp"] > ts)]
    for j in later:
        a.at[j, "item"] = f"never-seen-{j}"
        for c in study.outcomes:
            a.at[j, c] = float(rng.integers(1, 6))
    return replace(study, answers=a)


def test_prompts_and_proxies_ignore_the_outcome_and_the_future(monkeypatch):
    s = toy()
    base_prompts, _ = _recorded_prompts(s, monkeypatch, ALL_AUX)
    base = features(s).table
    for idx in range(len(s.answers)):
        p = _perturb_target_and_future(s, idx, seed=idx)
        prompts, _ = _recorded_prompts(p, monkeypatch, ALL_AUX, rows=[idx])
        assert prompts[idx] == base_prompts[idx]
        cols = ["relevance", "unexpectedness", "diversity", "purs_distance"]
        pd.testing.assert_series_equal(
            features(p).table.loc[idx, cols], base.loc[idx, cols], check_names=False
        )


def test_importing_an_outcome_column_is_refused():
    with pytest.raises(CrsevalError, match="user's own answer"):
        predictions(toy(), ["import:ground_truth"])
    with pytest.raises(CrsevalError, match="user's own answer"):
        predictions(toy(), ["import:rating"])


def taobao_like() -> SerendipityStudy:
    a = pd.DataFrame(
        {
            "user": ["1", "2", "3"],
            "item": ["10", "11", "12"],
            "category": [7.0, 8.0, 7.0],
            "Clicked": [1, 0, 1],
            "Purchased": [1, 0, 0],
            "Serendipity": [5, 1, 3],
            "ground_truth": [5.0, 1.0, 3.0],
            "C1": [3, 2, 1],
            "P1": [4, 5, 6],
        }
    )
    return SerendipityStudy(
        DatasetInfo("taobao-serendipity", "-", "0"),
        a,
        {},
        "Serendipity",
        {"history": "none published", "popularity": "no HOT flag"},
        outcomes=("ground_truth", "Clicked", "Purchased", "Serendipity"),
    )


def test_taobao_prompts_hold_no_outcome_and_no_invented_history():
    s = taobao_like()
    prompt = (
        evaluator.request(s, s.answers.iloc[0], Aux(curiosity=True, personality=True))
        .messages[-1]
        .content
    )
    assert "click" not in prompt.lower() and "purchase" not in prompt.lower()
    assert "history" not in prompt.lower() and "rated" not in prompt.lower()
    assert "a product of category 7" in prompt
    flipped = replace(
        s, answers=s.answers.assign(Clicked=[0, 1, 0], Purchased=[0, 1, 1], ground_truth=[1.0] * 3)
    )
    assert (
        evaluator.request(flipped, flipped.answers.iloc[0], Aux(curiosity=True))
        .messages[-1]
        .content
        == evaluator.request(s, s.answers.iloc[0], Aux(curiosity=True)).messages[-1].content
    )
    for switch in ("interaction", "similarity", "profiles"):
        assert "publishes none" in Aux(**{switch: True}).refused_by(s)
    assert "HOT flag" in Aux(popularity=True).refused_by(s)
    assert Aux(curiosity=True, personality=True).refused_by(s) is None


def test_taobao_interaction_switch_is_refused_by_the_job(shared, tmp_path):
    from crseval.api import context
    from crseval.runs.store import RunStore as Store
    from crseval.serendipity.job import SerendipityConfig, run

    cfg = SerendipityConfig(
        path=shared("serendipity/taobao"),
        dataset="taobao-serendipity",
        evaluators=["llm"],
        aux=["interaction"],
        llm={"backend": "scripted"},
    )
    with pytest.raises(CrsevalError, match="publishes none"):
        run(cfg, context(Store(tmp_path / "t")))


def test_a_sample_gets_exactly_the_proxy_scores_of_the_full_run(shared):
    from crseval.data import load_dataset

    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    rows = sample_rows(s, 200, seed=3)
    assert len(rows) == 200
    full = predictions(s, PROXIES)
    part_study, part = subset(s, predictions(s, PROXIES, rows=rows), rows)
    for n in PROXIES:
        np.testing.assert_array_equal(part[n], np.asarray(full[n])[rows])
    assert list(part_study.answers["item"]) == list(s.answers["item"].iloc[rows])


@pytest.mark.slow
def test_a_sample_gets_exactly_the_prompts_of_the_full_run(shared, monkeypatch):
    from crseval.data import load_dataset

    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    rows = sample_rows(s, 200, seed=3)
    # histories, popularity, similarity and few-shot examples all come from the whole study
    aux = Aux(popularity=True, similarity=True)
    sampled, _ = _recorded_prompts(s, monkeypatch, aux, rows=rows[:40], shots=2)
    everything, _ = _recorded_prompts(s, monkeypatch, aux, rows=None, shots=2)
    assert len(sampled) == 40 and all(sampled[i] == everything[i] for i in sampled)
