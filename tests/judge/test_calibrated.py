"""Calibrated judges: the fitted model is scikit-learn's ridge, nested CV never sees its test groups, and a
saved judge predicts exactly what the fitted one did."""

import json

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import DatasetInfo
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.judge.calibrated import (
    CalibratedJudge,
    feature_matrix,
    feature_names,
    fit_aspect,
    item_hash,
    kept,
    nested_cv_predictions,
)


def _items(n=40, seed=0):
    rng = np.random.default_rng(seed)
    items = []
    for i in range(n):
        k = int(rng.integers(1, 6))
        utts = [
            Utterance(Role.USER, "a movie please"),
            Utterance(Role.SYSTEM, 'Try "Alien (1979)". ' * k),
            Utterance(Role.USER, "thanks!" if k > 2 else "no"),
        ]
        items.append(
            JudgedItem(f"c{i}", Dialogue.from_utterances(f"c{i}", utts), {"overall": float(k)})
        )
    return items


def _probs(items):
    return {
        it.id: {
            "dialogue-overall": {
                str(d): (0.6 if d == int(it.labels["overall"]) else 0.1) for d in range(1, 6)
            }
        }
        for it in items
    }


def test_fit_is_sklearn_ridge_on_standardised_features():
    items = _items()
    X = feature_matrix(items, ["dialogue-overall"], _probs(items))
    y = np.array([it.labels["overall"] for it in items])
    model = fit_aspect(X, y, np.array([it.id for it in items]), "overall", (1, 5))
    ref = Ridge(alpha=model.alpha).fit(StandardScaler().fit_transform(X), y)
    assert model.coef == pytest.approx(ref.coef_.tolist())
    assert model.predict(X) == pytest.approx(ref.predict(StandardScaler().fit(X).transform(X)))
    assert np.corrcoef(model.predict(X), y)[0, 1] > 0.95


def test_nested_cv_never_sees_the_test_group():
    items = _items(50)
    X = feature_matrix(items, [], None)
    y = np.array([it.labels["overall"] for it in items])
    groups = np.repeat(np.arange(10), 5)
    base = nested_cv_predictions(X, y, groups)
    y2 = y.copy()
    y2[groups == 3] = (
        100.0  # another label for one group changes nothing in that group's own predictions
    )
    assert nested_cv_predictions(X, y2, groups)[groups == 3] == pytest.approx(base[groups == 3])


def test_saved_judge_predicts_the_same_and_bad_files_are_refused(tmp_path):
    items = _items()
    probs = _probs(items)
    X = feature_matrix(items, ["dialogue-overall"], probs)
    y = np.array([it.labels["overall"] for it in items])
    model = fit_aspect(X, y, np.array([it.id for it in items]), "overall", (1, 5))
    judge = CalibratedJudge(
        "t",
        "dialogue",
        ["dialogue-overall"],
        {"model": "m"},
        feature_names(["dialogue-overall"]),
        {"overall": model},
        [{"data": "toy", "n": len(items)}],
    )
    path = judge.save(tmp_path / "j" / "judge.json")
    again = CalibratedJudge.load(tmp_path / "j")
    assert again.predict(items, "overall", probs) == pytest.approx(
        judge.predict(items, "overall", probs)
    )
    # the prediction is mapped onto another human scale linearly (correlation unchanged)
    on04 = again.predict(items, "overall", probs, scale=(0, 4))
    assert on04 == pytest.approx(judge.predict(items, "overall", probs) - 1)
    with pytest.raises(CrsevalError, match="no LLM probabilities"):
        judge.predict(items, "overall", {})
    raw = json.loads(path.read_text())
    raw["format"] = "pickle"
    path.write_text(json.dumps(raw))
    with pytest.raises(CrsevalError, match="not a calibrated judge"):
        CalibratedJudge.load(path)
    with pytest.raises(CrsevalError, match="not found"):
        CalibratedJudge.load(tmp_path / "nowhere")


def test_a_compact_judge_reads_each_question_by_its_expected_score_alone(tmp_path):
    items = _items()
    probs = _probs(items)
    full = feature_names(["dialogue-overall"])
    names = feature_names(["dialogue-overall"], compact=True)
    # the rule features stay whole; of the question's six readings only the expected score is left
    assert names == [n for n in full if ":" not in n] + ["dialogue-overall:mean"]
    assert [full[i] for i in kept(full, True)] == names
    assert kept(full, False) == list(range(len(full)))
    X = feature_matrix(items, ["dialogue-overall"], probs)
    y = np.array([it.labels["overall"] for it in items])
    Xc = X[:, kept(full, True)]
    expected = [
        sum(d * probs[it.id]["dialogue-overall"][str(d)] for d in range(1, 6)) for it in items
    ]
    assert Xc[:, -1] == pytest.approx(expected)
    model = fit_aspect(Xc, y, np.array([it.id for it in items]), "overall", (1, 5))
    judge = CalibratedJudge(
        "t", "dialogue", ["dialogue-overall"], {"model": "m"}, names, {"overall": model},
        [{"data": "toy", "n": len(items)}], compact=True,
    )  # fmt: skip
    again = CalibratedJudge.load(judge.save(tmp_path / "judge.json"))
    assert again.compact and again.features == names
    assert again.predict(items, "overall", probs) == pytest.approx(np.clip(model.predict(Xc), 1, 5))
    # a file that says compact but holds the full layout's features is refused, not misread
    raw = json.loads((tmp_path / "judge.json").read_text())
    raw["features"] = full
    (tmp_path / "judge.json").write_text(json.dumps(raw))
    with pytest.raises(CrsevalError, match="other features"):
        CalibratedJudge.load(tmp_path / "judge.json")


def _talk(i, target=None, roles=(Role.USER, Role.SYSTEM), reply="Try {}."):
    said = [Utterance(roles[0], f"a movie like {i}?"), Utterance(roles[1], reply.format(i + 1))]
    return JudgedItem(f"c{i}", Dialogue.from_utterances(f"c{i}", said), {"overall": 3.0}, target)


def test_a_judge_knows_its_training_items_by_content_not_by_id_or_file():
    seen = [_talk(i) for i in range(10)]
    judge = CalibratedJudge(
        "t", "dialogue", [], None, feature_names([]), {}, [{"data": "toy@1", "n": 10}],
        trained_items=[item_hash(it) for it in seen],
    )  # fmt: skip
    # three training dialogues under opaque ids, merged into another file with ten new ones
    merged = [JudgedItem(f"opaque-{k}", it.dialogue, {}) for k, it in enumerate(seen[:3])]
    merged += [_talk(i) for i in range(100, 110)]
    other_file = JudgedSet(DatasetInfo("merged", "m.json", "2"), "dialogue")
    assert judge.unseen(other_file, merged) == merged[3:]
    assert item_hash(_talk(0, reply="Try   {}. ")) == item_hash(seen[0])  # spacing is not content
    # who said it and which turn is judged are
    assert item_hash(_talk(0, roles=(Role.SYSTEM, Role.USER))) != item_hash(seen[0])
    assert item_hash(_talk(0, target=1)) != item_hash(seen[0])
    # a judge fitted before item hashes were kept: all or nothing, by the data set's signature
    older = CalibratedJudge(
        "t", "dialogue", [], None, feature_names([]), {}, [{"data": "toy@1", "n": 10}]
    )
    assert older.unseen(JudgedSet(DatasetInfo("toy", "t.json", "1"), "dialogue"), merged) == []
    assert older.unseen(other_file, merged) == merged


def test_pooling_maps_scales_and_centres_each_set():
    from crseval.data.io import DatasetInfo
    from crseval.data.judged_types import JudgedSet
    from crseval.judge.fit import _pooled

    a = JudgedSet(DatasetInfo("a", "-", "0"), "dialogue", _items(10, 1), {"overall": (1.0, 5.0)})
    b_items = [
        JudgedItem(f"b{i}", it.dialogue, {"overall": (it.labels["overall"] - 1) / 2})
        for i, it in enumerate(_items(10, 2))
    ]  # the same kind of labels on a 0–2 scale, from a more lenient crowd
    for it in b_items:
        it.labels["overall"] = min(2.0, it.labels["overall"] + 0.25)
    b = JudgedSet(DatasetInfo("b", "-", "0"), "dialogue", b_items, {"overall": (0.0, 2.0)})
    pooled = _pooled([a, b], ["overall"])
    ya = np.array([it.labels["overall"] for it in pooled.items[:10]])
    yb = np.array([it.labels["overall"] for it in pooled.items[10:]])
    assert pooled.scales["overall"] == (1.0, 5.0)
    assert ya.mean() == pytest.approx(yb.mean())  # no offset left between the crowds
    raw_a = np.array([it.labels["overall"] for it in a.items])
    assert np.corrcoef(ya, raw_a)[0, 1] == pytest.approx(1.0)  # within a set only a shift
    assert np.ptp(yb) == pytest.approx(
        2 * np.ptp([it.labels["overall"] for it in b_items])
    )  # 0–2 → 1–5


def test_a_plan_records_a_states_judges_call_and_predicts_nothing(tmp_path):
    """While a plan is made (the CLI's estimate before a shift run) the shipped default's question is
    recorded and nothing is predicted: a stand-in's hidden states are not the embedded model's width."""
    from crseval.judge.judging import Judge
    from crseval.llm import LLMConfig, make_client
    from crseval.llm.planning import planning
    from crseval.runs.store import RunStore

    judge = CalibratedJudge.load("default")
    assert judge.reads_states
    judge.llm = {"model": "scripted"}  # answered by the scripted stand-in
    d = Dialogue.from_utterances(
        "d", [Utterance(Role.USER, "A horror movie?"), Utterance(Role.SYSTEM, "Try Insidious.")]
    )
    store = RunStore(tmp_path / "run")
    with planning(None) as recorder:
        client = make_client(LLMConfig(backend="scripted"))
        assert judge.rate("d", d, Judge("j", client), store.stream("judgments")) == {}
    assert recorder.plan.calls == 1
    store.close()
