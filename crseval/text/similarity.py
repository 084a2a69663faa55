"""Sentence similarity for topic-adaptation scoring: TF-IDF (default) or MiniLM embeddings.

TF-IDF is fitted on the KB's titles and plots (1–2-grams, English stop words, 4,096 features, l2
rows, so cosine = dot product). MiniLM is the sentence-transformers model shipped in a PyPI package
(offline). :func:`make_similarity` falls back from MiniLM to TF-IDF *loudly*: the warning goes to the
caller's log and ``fallback`` ends up in the signature.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from crseval.core.signature import content_hash


class TfidfSimilarity:
    def __init__(self, corpus: Sequence[str], max_features: int = 4096, label: str = "") -> None:
        self.vectorizer = TfidfVectorizer(
            ngram_range=(1, 2), stop_words="english", max_features=max_features
        )
        self.vectorizer.fit(corpus)
        fit = content_hash(chr(10).join(corpus).encode())
        self.signature = (
            f"tfidf(ngrams=1-2,stop=english,max_features={max_features},"
            + (f"corpus={label}," if label else "")
            + f"fit={fit})"
        )

    def encode(self, texts: Sequence[str]) -> sparse.csr_matrix:
        return self.vectorizer.transform(texts).tocsr()


class MiniLMSimilarity:
    def __init__(self) -> None:
        from crseval.text.embed import MiniLM

        self.model = MiniLM()
        self.signature = "minilm(all-MiniLM-L6-v2,cosine)"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        x = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def gram(x) -> np.ndarray:
    """Cosine similarities between all rows of an encoded block (rows are unit length or zero)."""
    g = x @ x.T
    return np.asarray(g.toarray() if sparse.issparse(g) else g, dtype=np.float64)


def make_similarity(
    name: str, corpus: Sequence[str], warn: Callable[[str], None] = print, label: str = ""
):
    """(backend, fallback note or None); ``label`` names the TF-IDF corpus in the signature."""
    if name == "minilm":
        try:
            return MiniLMSimilarity(), None
        except Exception as e:  # sentence-transformers or the packaged model missing
            note = f"similarity 'minilm' unavailable ({type(e).__name__}: {e}); fell back to TF-IDF"
            warn(note)
            return TfidfSimilarity(corpus, label=label), note
    return TfidfSimilarity(corpus, label=label), None
