"""Topic extractors: keyword, LDA (seeded, cached), LLM (structured, loud fallback)."""

import pytest

from crseval.data.kb import load_kb
from crseval.text.topics import KeywordTopics, LDATopics, make_topics


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_keyword_topics(kb):
    t = KeywordTopics(kb)
    got = t.extract(
        ["a scary movie with Keanu Reeves from the 90s", "How about The Matrix?", "hello"]
    )
    assert got[0] == {"genre:horror", "actor:Keanu Reeves", "year:1990s"}
    assert {"title:The Matrix", "genre:action", "genre:sci-fi"} <= got[1]
    assert got[2] == frozenset()


def test_lda_is_seeded_cached_and_empty_for_unknown_words(kb, tmp_path):
    a = LDATopics(kb, n_topics=5, seed=1, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("lda-*.npz"))) == 1
    b = LDATopics(kb, n_topics=5, seed=1, cache_dir=tmp_path)  # loaded from the cache
    texts = ["a thief steals secrets from dreams", "zzz qqq"]
    assert a.extract(texts) == b.extract(texts)
    assert a.extract(texts)[1] == frozenset()
    assert all(x.startswith("lda:") for x in a.extract(texts)[0])


def test_llm_topics_without_a_model_fall_back_loudly(kb):
    warnings = []
    topics, note = make_topics("llm", kb, warn=warnings.append)
    assert isinstance(topics, KeywordTopics)
    assert warnings == [note]


def test_llm_topics_parse_structured_output(kb):
    from crseval.llm.client import LLMClient
    from crseval.llm.scripted import ScriptedBackend

    client = LLMClient(ScriptedBackend(lambda req: '{"topics": ["Horror", "the 90s"]}'))
    topics, note = make_topics("llm", kb, client=client)
    assert note is None
    assert topics.extract(["x"]) == [frozenset({"horror", "the 90s"})]
