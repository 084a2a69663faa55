"""BLEU and DIST against references."""
import pytest

from crseval.behavior.generation import bleu, dist


def test_bleu_and_dist_against_references():
    import sacrebleu
    hyp, ref = ["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "a big dog"]
    assert bleu(hyp, ref, 4) == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score)
    assert dist(["a b a b"], 1) == pytest.approx(2 / 4)
    assert dist(["a b a b"], 2) == pytest.approx(2 / 3)
