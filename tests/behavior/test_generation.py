"""BLEU and DIST against references."""

import numpy as np
import pytest

from crseval.behavior.generation import bleu, dist


def test_bleu_and_dist_against_references():
    import sacrebleu

    hyp, ref = ["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "a big dog"]
    assert bleu(hyp, ref, 4) == pytest.approx(sacrebleu.corpus_bleu(hyp, [ref]).score)
    assert dist(["a b a b"], 1) == pytest.approx(2 / 4)
    assert dist(["a b a b"], 2) == pytest.approx(2 / 3)


def test_crslab_bleu_by_hand_and_against_crslab_code():
    """BLEU@k as CRSLab computes it: the clipped k-gram precision times the brevity penalty, per response."""
    from crseval.behavior.generation import crslab_bleu

    hyp, ref = "the cat sat on the mat", "the cat is on the mat"
    b1, b2 = crslab_bleu([hyp], [ref], 1)[0], crslab_bleu([hyp], [ref], 2)[0]
    assert b1 == pytest.approx(
        5 / 6
    )  # the, the, cat, on, mat of 6 unigrams ("sat" is not in the reference)
    assert b2 == pytest.approx(3 / 5)  # the cat, on the, the mat of 5 bigrams
    short = crslab_bleu(["the cat"], ["the cat sat on the mat"], 1)[0]
    assert short == pytest.approx(np.exp(1 - 6 / 2))  # brevity penalty alone: both unigrams match
    assert crslab_bleu(["a b"], ["c d"], 2)[0] == 0.0


def test_crslab_dist_counts_character_ngrams_as_crslab_does():
    """CRSLab's loop (``for token in ngrams(hyp, k): dist_set.add(token)`` over response strings, then
    ``len(dist_set) / dist_cnt``) run beside ours on the same responses."""
    from nltk import ngrams
    from crseval.behavior.generation import crslab_dist

    responses = ["watch heat", "watch heat now", "no"]
    for k in (2, 4):
        seen = set()
        for hyp in responses:
            seen.update(ngrams(hyp, k))
        assert crslab_dist(responses, k) == pytest.approx(len(seen) / len(responses))
    assert crslab_dist(["ab ab"], 2) == 3  # "ab", "b ", " a": characters, not words
