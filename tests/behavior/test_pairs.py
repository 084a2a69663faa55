"""Sentence pairs for the implicit BA classifier: balance, hard negatives, no leakage, OOD pairs."""

import pandas as pd
import pytest

from crseval.behavior.pairs import make_pairs, ood_pairs


def toy_sentences():
    rows = []
    for d in range(12):
        for lab, words in [
            ("a", "alpha apple"),
            ("b", "bravo banana"),
            ("c", "charlie cherry"),
            ("d", "delta date"),
        ]:
            for i in range(3):
                rows.append({"text": f"{words} number {d}-{i}", "label": lab, "dialogue": f"d{d}"})
    return pd.DataFrame(rows)


def test_original_pairs_are_balanced_and_correctly_labelled():
    s = toy_sentences()
    p = make_pairs(s, 400, seed=1)
    assert len(p) == 400
    assert p["same"].sum() == 200
    assert (p["same"] == (p["label_a"] == p["label_b"])).all()
    assert (p["a"] != p["b"]).all()


@pytest.mark.parametrize("labels", [["a", "b", "c"], ["a", "a", "a"]])
def test_sentences_that_cannot_pair_both_ways_are_refused(labels):
    """No strategy twice: no pair of one strategy; one strategy alone: no pair of two (the negatives'
    loop never ended). A CV fold of the bundled sample met the first and crashed."""
    from crseval.core.errors import CrsevalError

    s = pd.DataFrame({"text": ["x", "y", "z"], "label": labels, "dialogue": ["d"] * 3})
    with pytest.raises(CrsevalError, match="no pairs from 3 sentences"):
        make_pairs(s, 10)


def test_mixed_hard_pairs_use_the_confused_classes():
    p = make_pairs(toy_sentences(), 400, hard=100, hard_classes={"a": "b"}, seed=2)
    hard = p[p["kind"] == "hard negative"]
    assert len(hard) == 100
    assert set(map(frozenset, zip(hard["label_a"], hard["label_b"]))) == {frozenset("ab")}
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
    hard = ood_pairs(
        s, seed=0, hard_classes={"a": "b", "zz": "c"}
    )  # "zz" is not in the file: skipped
    neg = hard[hard["same"] == 0]
    assert len(neg) == n_pos and set(zip(neg["label_a"], neg["label_b"])) == {("a", "b")}
    assert hard[hard["same"] == 1].equals(p[p["same"] == 1])
    with pytest.raises(ValueError, match="confusable"):
        ood_pairs(s, hard_classes={"zz": "a"})


def test_ood_pairs_refuse_files_that_cannot_form_both_kinds_of_pair():
    one_strategy = pd.DataFrame(
        {"text": ["a", "b", "c"], "label": ["x", "x", "x"]}
    )  # no negative exists
    no_two_alike = pd.DataFrame({"text": ["a", "b"], "label": ["x", "y"]})  # no positive exists
    for s in (one_strategy, no_two_alike):
        with pytest.raises(ValueError, match="two sentences of one strategy"):
            ood_pairs(s, seed=0)
