"""Each grouped fold's hard-class map comes from its training dialogues alone."""

import numpy as np
import pandas as pd

from crseval.behavior.classifier import evaluate_classifier, fold_hard_classes


class _Embedder:
    """Texts → fixed vectors: credibility and similarity sentences share a direction (confusable),
    offer_help stands apart."""

    name = "toy"

    def encode(self, texts):
        out = []
        for t in texts:
            v = np.zeros(4)
            v[{"cre": 0, "sim": 0, "off": 2}[t[:3]]] = 1.0
            v[3] = (hash(t) % 97) / 970  # a little noise
            out.append(v)
        return np.asarray(out)


def _sentences():
    rows = []
    for d in range(10):
        for i, lab in enumerate(["credibility", "similarity", "offer_help"] * 4):
            rows.append({"text": f"{lab} text {d}-{i}", "label": lab, "dialogue": f"d{d}"})
    return pd.DataFrame(rows)


def test_one_map_per_fold_from_its_training_dialogues():
    s = _sentences()
    maps = fold_hard_classes(s, _Embedder(), n_splits=5, inner_splits=3, lexical=False)
    assert len(maps) == 5
    pair = {"credibility", "similarity"}
    for m in maps:  # credibility and similarity cannot be told apart, offer_help can
        assert m and set(m) <= pair and set(m.values()) <= pair


def test_a_held_out_dialogue_does_not_change_its_folds_map():
    """Relabelling sentences of the dialogues one fold holds out leaves that fold's map as it was."""
    from sklearn.model_selection import GroupKFold

    s = _sentences()
    base = fold_hard_classes(s, _Embedder(), n_splits=2, inner_splits=3, lexical=False)
    _, test = next(GroupKFold(2).split(s, groups=s["dialogue"]))
    changed = s.copy()
    held_out = changed.index[test][changed["label"].iloc[test] == "credibility"]
    changed.loc[held_out, "label"] = "offer_help"
    again = fold_hard_classes(changed, _Embedder(), n_splits=2, inner_splits=3, lexical=False)
    assert again[0] == base[0]
    # a map from all dialogues (what the folds used before) does change: offer_help becomes hard
    whole = evaluate_classifier(changed, _Embedder(), n_splits=3, lexical=False).hard_classes()
    assert "offer_help" in whole and "offer_help" not in again[0]


def test_few_sentences_per_strategy_train_quietly(recwarn):
    """`behavior train sample --folds 3` printed scikit-learn's "could represent a regression problem"
    warning (more classes than half the sentences): strategies are classes however few the sentences."""
    from crseval.behavior.classifier import StrategyClassifier
    from crseval.text.embed import Hashing

    texts = ["have you seen it", "I loved it too", "it is a comedy", "what do you like"]
    StrategyClassifier(Hashing()).fit(texts, ["a", "b", "c", "c"])
    assert not [w for w in recwarn.list if "unique classes" in str(w.message)]
