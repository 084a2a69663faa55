"""The paper design's folds: the paper's random split of one pool, or pairs from disjoint dialogues."""

import pandas as pd

from crseval.behavior.paper import PaperDesign, _folds
from crseval.behavior.pairs import make_pairs

LABELS = ["credibility", "opinion_inquiry", "similarity"]


def _sentences():
    return pd.DataFrame(
        [
            {"text": f"{lab} sentence {d}-{i}", "label": lab, "dialogue": f"d{d}"}
            for d in range(10)
            for i, lab in enumerate(LABELS)
        ]
    )


def test_grouped_folds_build_train_and_test_pairs_from_disjoint_dialogues():
    s = _sentences()
    hard = {"credibility": "similarity"}
    pool = make_pairs(s, 100, hard=20, hard_classes=hard, seed=0)
    run = PaperDesign(pairs=100, hard=20, folds=5, protocols=["grouped"], seed=0, epochs=1)
    folds = list(_folds(s, pool, "grouped", 20, [hard] * 5, run))
    assert len(folds) == 5
    for train, test in folds:
        assert len(train) == 80 and len(test) == 20
        assert (train["kind"] == "hard negative").sum() == 16 and (
            test["kind"] == "hard negative"
        ).sum() == 4
        seen = set(train["dialogue_a"]) | set(train["dialogue_b"])
        assert not seen & (set(test["dialogue_a"]) | set(test["dialogue_b"]))


def test_random_folds_split_one_pool_of_pairs():
    s = _sentences()
    pool = make_pairs(s, 100, seed=0)
    run = PaperDesign(pairs=100, hard=0, folds=5, protocols=["random"], seed=0, epochs=1)
    folds = list(_folds(s, pool, "random", 0, None, run))
    assert sorted(i for _, test in folds for i in test.index) == sorted(pool.index)
    assert all(len(train) == 80 for train, _ in folds)
