"""Supervised contrastive loss against a hand computation; batches hold the negatives each design needs."""
import math

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from crseval.behavior.contrastive import batches, supcon_loss  # noqa: E402


def test_supcon_loss_matches_the_formula_by_hand():
    z = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    labels = torch.tensor([0, 0, 1])
    t = 0.5
    sim = (z @ z.T).numpy() / t  # rows are unit vectors already
    # anchors 0 and 1 have one positive each (each other); anchor 2 has none and is left out
    loss0 = -(sim[0, 1] - math.log(math.exp(sim[0, 1]) + math.exp(sim[0, 2])))
    loss1 = -(sim[1, 0] - math.log(math.exp(sim[1, 0]) + math.exp(sim[1, 2])))
    assert supcon_loss(z, labels, t).item() == pytest.approx((loss0 + loss1) / 2, rel=1e-6)


def test_supcon_loss_is_lower_when_classes_separate():
    labels = torch.tensor([0, 0, 1, 1])
    apart = torch.tensor([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    mixed = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [0.1, 1.0]])
    assert supcon_loss(apart, labels, 0.1) < supcon_loss(mixed, labels, 0.1)


def sentences():
    rows = [{"text": f"d{d} s{i}", "label": lab, "dialogue": f"d{d}"}
            for d in range(20) for i, lab in enumerate(["a", "b", "c", "d"])]
    return pd.DataFrame(rows)


def test_original_batches_are_a_permutation():
    s = sentences()
    got = batches(s, 16, np.random.default_rng(0))
    assert sorted(np.concatenate(got).tolist()) == list(range(len(s)))
    assert max(len(b) for b in got) == 16


def test_mixed_hard_batches_hold_whole_dialogues_and_a_confusable_pair():
    s = sentences()
    got = batches(s, 16, np.random.default_rng(0), hard_classes={"a": "b"})
    assert len(got) == len(s) // 16
    for b in got:
        rows = s.iloc[b]
        assert {"a", "b"} <= set(rows["label"])
        whole = rows.groupby("dialogue").size()
        assert (whole == 4).sum() >= 2  # at least half the batch is whole dialogues: same context, other strategies


def test_mixed_hard_batches_cut_a_dialogue_longer_than_the_batch():
    s = pd.DataFrame([{"text": f"t{i}", "label": "ab"[i % 2], "dialogue": "long"} for i in range(40)])
    got = batches(s, 16, np.random.default_rng(0), hard_classes={"a": "b"})
    assert all(0 < len(b) <= 16 for b in got)
