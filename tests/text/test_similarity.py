"""Sentence similarity: TF-IDF against sklearn, MiniLM offline, loud fallback."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from crseval.data.kb import load_kb
from crseval.text.similarity import TfidfSimilarity, gram, make_similarity


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
    assert "max_features=4096" in sim.signature
    assert "ngrams=1-2" in sim.signature


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
