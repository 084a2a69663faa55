"""Generation-quality baselines: BLEU@K (sacrebleu) and DIST@K (distinct n-grams), and the same two as
CRSLab computes them (``crslab_bleu``, ``crslab_dist``), the convention of CRS papers' tables.

CRSLab (0.1.2, ``evaluator/standard.py`` and ``metrics/gen.py``): BLEU@k of a response is nltk's
``sentence_bleu`` with all the weight on k-grams (clipped k-gram precision × brevity penalty, no
smoothing, whitespace tokens), averaged over responses; DIST@k is the number of distinct k-grams over
all responses divided by the number of responses — and because CRSLab hands nltk's ``ngrams`` the
response *string*, those k-grams are of characters, not words. We reproduce both as published."""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import sacrebleu


def bleu(hypotheses: Sequence[str], references: Sequence[str], k: int = 4) -> float:
    """BLEU with n-grams up to ``k`` (sacrebleu's max_ngram_order), one reference per hypothesis, 0–100."""
    metric = sacrebleu.metrics.BLEU(max_ngram_order=k, effective_order=True)
    return float(metric.corpus_score(list(hypotheses), [list(references)]).score)


def dist(texts: Sequence[str], k: int = 2) -> float:
    grams = [
        tuple(toks[i : i + k])
        for t in texts
        for toks in [t.lower().split()]
        for i in range(len(toks) - k + 1)
    ]
    return len(set(grams)) / len(grams) if grams else 0.0


def crslab_bleu(hypotheses: Sequence[str], references: Sequence[str], k: int) -> np.ndarray:
    """CRSLab's BLEU@k of each response against its one reference (0–1; CRSLab reports the mean)."""
    from nltk.translate.bleu_score import sentence_bleu

    weights = tuple(1.0 if n == k else 0.0 for n in range(1, 5))
    with (
        warnings.catch_warnings()
    ):  # nltk warns on every response without a matching higher-order n-gram
        warnings.simplefilter("ignore")
        return np.array(
            [
                sentence_bleu([r.split(" ")], h.split(" "), weights=weights)
                for h, r in zip(hypotheses, references)
            ],
            dtype=float,
        )


def crslab_ngrams(text: str, k: int) -> frozenset:
    """The k-grams CRSLab's DIST@k counts for one response: of its characters (see the module note)."""
    return frozenset(text[i : i + k] for i in range(len(text) - k + 1))


def crslab_dist(texts: Sequence[str], k: int) -> float:
    """CRSLab's DIST@k: distinct character k-grams over all responses / number of responses."""
    return (
        len(frozenset().union(*(crslab_ngrams(t, k) for t in texts))) / len(texts)
        if len(texts)
        else 0.0
    )
