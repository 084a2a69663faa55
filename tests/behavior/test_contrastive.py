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


class _Fake:
    """A stand-in fine-tuned model: a vector per text from its length."""

    def eval(self):
        pass

    def encode(self, texts, **_):
        return np.array([[len(t), 1.0] for t in texts], np.float32)


def test_an_encoder_is_fine_tuned_only_for_vectors_its_store_lacks(tmp_path):
    """`behavior train` said "completed records are kept" when interrupted and kept nothing: every fold's
    encoder was fine-tuned again. Its vectors are now kept in the run directory; a resumed run reads
    them back, and fine-tunes only for a sentence the store lacks (or to save the weights)."""
    from crseval.behavior.contrastive import FineTunedEncoder

    trained = []

    def train():
        trained.append(1)
        return _Fake()

    store = tmp_path / "encoders" / "abc.sqlite"
    first = FineTunedEncoder(train, "base+supcon:abc", 2, store)
    assert not trained  # nothing asked yet: no fine-tuning
    vectors = first.encode(["a film", "another film"])
    assert len(trained) == 1
    resumed = FineTunedEncoder(train, "base+supcon:abc", 2, store)
    assert np.array_equal(resumed.encode(["another film", "a film"]), vectors[::-1])
    assert len(trained) == 1  # read back, not fine-tuned again
    resumed.encode(["a new sentence"])
    assert len(trained) == 2
    assert FineTunedEncoder(train, "other", 2, None).encode(["x"]).shape == (1, 2)
