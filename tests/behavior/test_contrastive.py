"""Supervised contrastive loss against a hand computation; batches are a seeded permutation."""

import math

import numpy as np
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


def test_batches_are_a_permutation():
    got = batches(80, 16, np.random.default_rng(0))
    assert sorted(np.concatenate(got).tolist()) == list(range(80))
    assert max(len(b) for b in got) == 16
