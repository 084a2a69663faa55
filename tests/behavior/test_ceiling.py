"""The label ceiling: checked by hand, against a brute-force enumeration of make_pairs' draw and against
make_pairs itself, and on INSPIRED."""

import numpy as np
import pandas as pd
import pytest

from crseval.behavior.ceiling import label_ceiling, pair_ceiling, recurring
from crseval.behavior.pairs import make_pairs


def sentences(rows):
    return pd.DataFrame(rows, columns=["text", "label", "dialogue"])


# "great" four times (3 acknowledgment, 1 no_strategy) in four dialogues, "hello" twice (no_strategy),
# "yes" twice (acknowledgment, credibility), one text that never recurs, and "hi" twice in ONE dialogue
HAND = sentences(
    [
        ("Great!", "ack", "d1"),
        ("Great!", "ack", "d2"),
        ("Great!", "ack", "d3"),
        ("Great!", "none", "d4"),
        ("Hello", "none", "d1"),
        ("Hello", "none", "d2"),
        ("yes", "ack", "d3"),
        ("yes", "cred", "d4"),
        ("I loved it", "cred", "d1"),
        ("hi", "none", "d5"),
        ("hi", "none", "d5"),
    ]
)


def test_recurring_means_the_exact_text_in_two_dialogues():
    assert sorted(set(recurring(HAND)["key"])) == [
        "Great!",
        "Hello",
        "yes",
    ]  # "hi" recurs in one dialogue only
    assert (
        recurring(HAND.assign(text=HAND["text"].str.replace("Great!", "great"))).shape[0] == 8
    )  # case kept as is


def test_agreement_and_strategy_ceiling_by_hand():
    c = label_ceiling(HAND)
    assert (c.texts, c.sentences) == (3, 8)
    # unordered cross-dialogue pairs: Great! 6 (3 agree), Hello 1 (agrees), yes 1 (disagrees) → 4 / 8
    assert c.agreement == pytest.approx(4 / 8)
    # majority labels: Great! 3, Hello 2, yes 1 → 6 / 8
    assert c.strategy_ceiling == pytest.approx(6 / 8)
    assert c.model_accuracy is None


def test_model_accuracy_on_the_recurring_sentences_only():
    predicted = pd.Series(
        ["ack"] * len(HAND), index=HAND.index
    )  # right on Great! ×3 and one yes, of 8
    assert label_ceiling(HAND, predicted).model_accuracy == pytest.approx(4 / 8)


def brute_force(s: pd.DataFrame) -> float:
    """The oracle's accuracy by enumerating make_pairs' draw over sentence indices (its docstring's words:
    positive = i from classes with ≥ 2 sentences, j ≠ i of its class; negative = any i, j of another class),
    then taking, per ordered text pair, the likelier kind."""
    texts, labels = s["text"].tolist(), s["label"].tolist()
    size = {lab: labels.count(lab) for lab in set(labels)}
    pool = [i for i, lab in enumerate(labels) if size[lab] >= 2]
    pos, neg = {}, {}
    for i in pool:
        for j in range(len(s)):
            if j != i and labels[j] == labels[i]:
                key = (texts[i], texts[j])
                pos[key] = pos.get(key, 0) + 1 / len(pool) / (size[labels[i]] - 1)
    for i in range(len(s)):
        for j in range(len(s)):
            if labels[j] != labels[i]:
                key = (texts[i], texts[j])
                neg[key] = neg.get(key, 0) + 1 / len(s) / (len(s) - size[labels[i]])
    return 0.5 * sum(max(pos.get(k, 0), neg.get(k, 0)) for k in set(pos) | set(neg))


def test_pair_ceiling_equals_a_brute_force_enumeration():
    rec = recurring(HAND)
    assert label_ceiling(HAND).pair_ceiling == pytest.approx(
        brute_force(rec.assign(text=rec["key"]))
    )
    rng = np.random.default_rng(3)
    noisy = sentences(
        [
            (
                f"t{k}",
                rng.choice(["a", "b", "c"], p=[0.7, 0.2, 0.1]) if k % 2 else "abc"[k % 3],
                f"d{n}",
            )
            for k in range(9)
            for n in range(int(rng.integers(2, 5)))
        ]
    )
    counts = pd.crosstab(noisy["text"], noisy["label"]).to_numpy()
    assert pair_ceiling(counts) == pytest.approx(brute_force(noisy))


def test_pair_ceiling_is_what_the_oracle_scores_on_make_pairs_pairs():
    rng = np.random.default_rng(0)
    rows = [
        (f"text {t}", rng.choice(["a", "b", "c", "d"], p=p), f"d{n}")
        for t, p in enumerate(
            [[0.9, 0.1, 0, 0], [0.5, 0.5, 0, 0], [0, 0.2, 0.8, 0], [0, 0, 0.3, 0.7], [0.25] * 4]
        )
        for n in range(40)
    ]
    s = sentences(rows)
    counts = pd.crosstab(s["text"], s["label"])
    pairs = make_pairs(s, 40000, seed=1)
    # the oracle's rule, applied pair by pair: "same" where the positive draw is the likelier one
    n_class, n = counts.sum().to_numpy(float), len(s)
    c = counts.to_numpy(float)
    p_pos = (c / n) @ (c / (n_class - 1)).T - np.diag((c / n / (n_class - 1)).sum(axis=1))
    p_neg = (c / n) @ ((c.sum(axis=1, keepdims=True) - c) / (n - n_class)).T
    ix = {t: k for k, t in enumerate(counts.index)}
    a, b = pairs["a"].map(ix).to_numpy(), pairs["b"].map(ix).to_numpy()
    sampled = np.mean((p_pos[a, b] >= p_neg[a, b]) == pairs["same"].to_numpy())
    assert pair_ceiling(c) == pytest.approx(sampled, abs=0.01)


def test_consistent_labels_have_no_ceiling_below_one():
    s = sentences(
        [
            (t, lab, f"d{n}")
            for t, lab in [("hello", "none"), ("great", "ack"), ("me too", "sim")]
            for n in range(3)
        ]
    )
    c = label_ceiling(s)
    assert (c.agreement, c.strategy_ceiling, c.pair_ceiling) == (1.0, 1.0, pytest.approx(1.0))


def test_no_recurring_text_or_one_label_gives_none():
    assert label_ceiling(sentences([("a", "x", "d1"), ("b", "y", "d2")])) is None
    assert (
        label_ceiling(sentences([("a", "x", "d1"), ("a", "x", "d2")])) is None
    )  # one label: no negative pair
    assert (
        label_ceiling(sentences([("a", "x", "d1"), ("a", "y", "d2")])) is None
    )  # no class of two: no positive


def test_inspired_ceiling(shared):
    """The README's numbers: 442 recurring sentences, labels agree .896 across dialogues, text-only ceilings
    .919 (strategy) and .927 (pairs)."""
    from crseval.behavior.classifier import labelled_sentences
    from crseval.data import load_dataset

    s = labelled_sentences(load_dataset("inspired", shared("inspired")).dialogues)
    c = label_ceiling(s)
    assert (c.texts, c.sentences) == (115, 442)
    assert (round(c.agreement, 3), round(c.strategy_ceiling, 3), round(c.pair_ceiling, 3)) == (
        0.896,
        0.919,
        0.927,
    )
