"""Pairs, classifiers and meta tools on real INSPIRED data (skipped when absent) and constructed data."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from crseval.behavior.classifier import evaluate_classifier, labelled_sentences
from crseval.behavior.generation import bleu, dist
from crseval.behavior.implicit import PairClassifier, cross_validate
from crseval.behavior.meta import metric_preferences, mix, preference_kappa
from crseval.behavior.pairs import make_pairs, ood_pairs
from crseval.text.embed import Hashing


@pytest.fixture(scope="module")
def inspired(request):
    from tests.conftest import shared_path
    from crseval.data import load_dataset
    return labelled_sentences(load_dataset("inspired", shared_path("inspired")).dialogues)


@pytest.fixture(scope="module")
def emb():
    from crseval.text.embed import get_embedder
    return get_embedder()


def toy_sentences():
    rows = []
    for d in range(12):
        for lab, words in [("a", "alpha apple"), ("b", "bravo banana"), ("c", "charlie cherry"), ("d", "delta date")]:
            for i in range(3):
                rows.append({"text": f"{words} number {d}-{i}", "label": lab, "dialogue": f"d{d}"})
    return pd.DataFrame(rows)


def test_original_pairs_are_balanced_and_correctly_labelled():
    s = toy_sentences()
    p = make_pairs(s, 400, seed=1)
    assert len(p) == 400 and p["same"].sum() == 200
    assert (p["same"] == (p["label_a"] == p["label_b"])).all() and (p["a"] != p["b"]).all()


def test_mixed_hard_pairs_use_the_confused_classes():
    p = make_pairs(toy_sentences(), 400, hard=100, hard_classes={"a": "b"}, seed=2)
    hard = p[p["kind"] == "hard negative"]
    assert len(hard) == 100 and set(map(frozenset, zip(hard["label_a"], hard["label_b"]))) == {frozenset("ab")}
    assert p["same"].sum() == 200  # the hard negatives replace ordinary negatives


def test_pairs_per_fold_never_leak_test_dialogues():
    from sklearn.model_selection import GroupKFold
    s = toy_sentences()
    for train, test in GroupKFold(4).split(s, groups=s["dialogue"]):
        p = make_pairs(s.iloc[train], 200, seed=0)
        held_out = set(s.iloc[test]["dialogue"])
        assert not (set(p["dialogue_a"]) | set(p["dialogue_b"])) & held_out
        assert not set(p["a"]) & set(s.iloc[test]["text"])


def test_ood_pairs():
    s = toy_sentences()[["text", "label"]]
    p = ood_pairs(s, seed=0)
    n_pos = sum(k * (k - 1) // 2 for k in s["label"].value_counts())
    assert (p["same"] == 1).sum() == n_pos == (p["same"] == 0).sum()


def test_pair_classifier_learns_and_roundtrips(tmp_path):
    s = toy_sentences()
    clf = PairClassifier(Hashing(), seed=0).fit(s, make_pairs(s, 600, seed=3))
    test = make_pairs(s, 200, seed=9)
    acc = np.mean((clf.proba(test["a"], test["b"]) >= 0.5) == test["same"])
    assert acc > 0.9
    clf.save(tmp_path / "m")
    again = PairClassifier.load(tmp_path / "m", Hashing())
    assert np.allclose(again.proba(test["a"], test["b"]), clf.proba(test["a"], test["b"]))


def test_strategy_classifier_and_pair_classifier_beat_chance_on_held_out_inspired(inspired, emb):
    rep = evaluate_classifier(inspired, emb, n_splits=5)
    assert rep.accuracy > 0.55  # 14 classes: chance (majority) is 0.15
    assert set(rep.per_class["label"]) == set(inspired["label"])
    hard = rep.hard_classes()
    assert hard and all(rep.per_class.set_index("label").loc[c, "accuracy"] < 0.7 for c in hard)
    cv = cross_validate(inspired, emb, n_pairs=8000, n_splits=3, test_pairs=2000)
    assert cv.accuracy > 0.7 and cv.kappa > 0.4  # balanced pairs: chance is 0.5 / κ 0


def test_kappa_and_bootstrap_against_sklearn():
    rng = np.random.default_rng(0)
    human = rng.choice(["A", "B", "same"], 200)
    metric = np.where(rng.random(200) < 0.7, human, rng.choice(["A", "B", "same"], 200))
    k, lo, hi = preference_kappa(metric, human, n_boot=300)
    assert k == pytest.approx(cohen_kappa_score(human, metric, labels=["A", "B", "same"])) and lo < k < hi
    assert list(metric_preferences([1, 0, 0.5], [0, 1, 0.5])) == ["A", "B", "same"]


def test_mixture_replaces_the_requested_share():
    ideal = pd.DataFrame({"dialogue": ["d"] * 1000, "turn": range(1000), "response": ["good"] * 1000})
    worst = ideal.assign(response="bad")
    m = mix(ideal, worst, 0.3, seed=1)
    assert (m["response"] == "bad").mean() == pytest.approx(0.3, abs=0.04)


def test_bleu_and_dist_against_references():
    import sacrebleu
    hyp, ref = ["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "a big dog"]
    assert bleu(hyp, ref, 4) == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score)
    assert dist(["a b a b"], 1) == pytest.approx(2 / 4) and dist(["a b a b"], 2) == pytest.approx(2 / 3)
