"""Sentence similarity: TF-IDF against sklearn, MiniLM offline, loud fallback."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from crseval.data.kb import load_kb
from crseval.text.similarity import TfidfSimilarity, gram, make_similarity, top_terms


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_tfidf_matches_sklearn_cosine(kb):
    sim = TfidfSimilarity(kb.texts())
    texts = [
        "a hacker in a simulation",
        "a thief steals secrets from dreams",
        "dreams and a thief",
        "hello",
    ]
    ref = TfidfVectorizer(ngram_range=(1, 2), stop_words="english", max_features=4096).fit(
        kb.texts()
    )
    expected = cosine_similarity(ref.transform(texts))
    expected[3, 3] = 0.0  # an all-zero vector has no similarity, not 1
    assert np.allclose(gram(sim.encode(texts)), expected)
    assert "max_features=4096(ties:term)" in sim.signature
    assert "ngrams=1-2" in sim.signature


def test_the_vocabulary_cut_breaks_ties_by_the_term_on_every_machine():
    """scikit-learn's max_features keeps the most frequent terms with numpy's unstable sort, whose order
    among equal counts depends on the CPU (AVX2 and AVX-512 kernels kept 182 other terms of the
    OpenDialKG KB's 4,096, and the study's cross-coherence moved by up to .04): crseval's cut keeps the
    most frequent terms and, among equal counts, the first in alphabetical order — a hand-checked rule."""
    corpus = ["zeta alpha", "alpha beta", "gamma delta", "epsilon zeta", "alpha omega"]
    # counts: alpha 3, zeta 2, then beta, delta, epsilon, gamma, omega once each
    assert top_terms(corpus, 4) == ["alpha", "beta", "delta", "zeta"]
    assert top_terms(corpus, 2) == ["alpha", "zeta"]
    assert top_terms(corpus, 4, min_df=2) == ["alpha", "zeta"]  # min_df first, as scikit-learn does
    shuffled = corpus[::-1]
    assert top_terms(shuffled, 4) == top_terms(corpus, 4)  # the corpus's order does not matter
    sim = TfidfSimilarity(corpus, max_features=4)
    assert sorted(sim.vectorizer.vocabulary_) == top_terms(
        corpus, 4, ngram_range=(1, 2), stop_words="english"
    )


def test_minilm_fallback_is_loud(kb, monkeypatch):
    import crseval.text.similarity as s

    def broken():
        raise ImportError("no sentence-transformers")

    monkeypatch.setattr(s, "MiniLMSimilarity", broken)
    warnings = []
    backend, note = make_similarity("minilm", kb.texts(), warnings.append)
    assert isinstance(backend, TfidfSimilarity)
    assert "fell back" in note
    assert warnings == [note]


def test_minilm_similarity_is_offline_and_semantic(kb):
    pytest.importorskip("sentence_transformers")
    backend, note = make_similarity("minilm", kb.texts())
    assert note is None
    assert backend.signature.startswith("minilm")
    g = gram(
        backend.encode(
            ["I want a scary movie", "Something frightening, please", "Who directed it?"]
        )
    )
    assert np.allclose(np.diag(g), 1.0, atol=1e-5)
    assert g[0, 1] > g[0, 2]
