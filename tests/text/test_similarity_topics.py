"""TF-IDF similarity as specified, topic extractors, loud fallbacks."""
import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from crseval.data.kb import load_kb
from crseval.text.similarity import TfidfSimilarity, gram, make_similarity
from crseval.text.topics import KeywordTopics, LDATopics, make_topics


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_tfidf_matches_sklearn_cosine(kb):
    sim = TfidfSimilarity(kb.texts())
    texts = ["a hacker in a simulation", "a thief steals secrets from dreams", "dreams and a thief", "hello"]
    ref = TfidfVectorizer(ngram_range=(1, 2), stop_words="english", max_features=4096).fit(kb.texts())
    expected = cosine_similarity(ref.transform(texts))
    expected[3, 3] = 0.0  # an all-zero vector has no similarity, not 1
    assert np.allclose(gram(sim.encode(texts)), expected)
    assert "max_features=4096" in sim.signature and "ngrams=1-2" in sim.signature


def test_minilm_fallback_is_loud(kb, monkeypatch):
    import crseval.text.similarity as s

    def broken():
        raise ImportError("no sentence-transformers")
    monkeypatch.setattr(s, "MiniLMSimilarity", broken)
    warnings = []
    backend, note = make_similarity("minilm", kb.texts(), warnings.append)
    assert isinstance(backend, TfidfSimilarity) and "fell back" in note and warnings == [note]


def test_keyword_topics(kb):
    t = KeywordTopics(kb)
    got = t.extract(["a scary movie with Keanu Reeves from the 90s", "How about The Matrix?", "hello"])
    assert got[0] == {"genre:horror", "actor:Keanu Reeves", "year:1990s"}
    assert {"title:The Matrix", "genre:action", "genre:sci-fi"} <= got[1]
    assert got[2] == frozenset()


def test_lda_is_seeded_cached_and_empty_for_unknown_words(kb, tmp_path):
    a = LDATopics(kb, n_topics=5, seed=1, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("lda-*.npz"))) == 1
    b = LDATopics(kb, n_topics=5, seed=1, cache_dir=tmp_path)  # loaded from the cache
    texts = ["a thief steals secrets from dreams", "zzz qqq"]
    assert a.extract(texts) == b.extract(texts)
    assert a.extract(texts)[1] == frozenset() and all(x.startswith("lda:") for x in a.extract(texts)[0])


def test_llm_topics_without_a_model_fall_back_loudly(kb):
    warnings = []
    topics, note = make_topics("llm", kb, warn=warnings.append)
    assert isinstance(topics, KeywordTopics) and warnings == [note]


def test_llm_topics_parse_structured_output(kb):
    from crseval.llm.client import LLMClient
    from crseval.llm.scripted import ScriptedBackend
    client = LLMClient(ScriptedBackend(lambda req: '{"topics": ["Horror", "the 90s"]}'))
    topics, note = make_topics("llm", kb, client=client)
    assert note is None and topics.extract(["x"]) == [frozenset({"horror", "the 90s"})]


def test_minilm_similarity_is_offline_and_semantic(kb):
    pytest.importorskip("sentence_transformers")
    backend, note = make_similarity("minilm", kb.texts())
    assert note is None and backend.signature.startswith("minilm")
    g = gram(backend.encode(["I want a scary movie", "Something frightening, please", "Who directed it?"]))
    assert np.allclose(np.diag(g), 1.0, atol=1e-5) and g[0, 1] > g[0, 2]
