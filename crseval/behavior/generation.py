"""Generation-quality baselines: BLEU@K (sacrebleu) and DIST@K (distinct n-grams)."""
from __future__ import annotations

from typing import Sequence

import sacrebleu



def bleu(hypotheses: Sequence[str], references: Sequence[str], k: int = 4) -> float:
    """BLEU with n-grams up to ``k`` (sacrebleu's max_ngram_order), one reference per hypothesis, 0–100."""
    metric = sacrebleu.metrics.BLEU(max_ngram_order=k, effective_order=True)
    return float(metric.corpus_score(list(hypotheses), [list(references)]).score)


def dist(texts: Sequence[str], k: int = 2) -> float:
    grams = [tuple(toks[i:i + k]) for t in texts for toks in [t.lower().split()] for i in range(len(toks) - k + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0
