"""A saved pair model's parts, read back without scikit-learn: its logistic regressions from their
coefficients and its TF-IDF terms from their vocabulary and idf. Importing scikit-learn costs ~2 s,
a quarter of `behavior implicit --model RUN --eval-file FILE`; these give scikit-learn's numbers
(checked against it in tests/behavior/test_linear.py) and are only used to score, never to fit."""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import scipy.sparse as sp


class Linear:
    """``LogisticRegression.predict_proba`` / ``predict`` of a fitted model: softmax over the classes'
    scores, or the logistic of the one score of a binary model."""

    def __init__(self, coef: np.ndarray, intercept: np.ndarray, classes: Sequence) -> None:
        self.coef_, self.intercept_ = np.asarray(coef), np.asarray(intercept)
        self.classes_ = np.asarray(classes)

    def _scores(self, x) -> np.ndarray:
        return np.asarray(x @ self.coef_.T) + self.intercept_

    def predict_proba(self, x) -> np.ndarray:
        s = self._scores(x)
        if s.shape[1] == 1:
            p = 1 / (1 + np.exp(-s[:, 0]))
            return np.column_stack([1 - p, p])
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, x) -> np.ndarray:
        s = self._scores(x)
        return self.classes_[(s[:, 0] > 0).astype(int) if s.shape[1] == 1 else s.argmax(axis=1)]


_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern


class Tfidf:
    """``TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, dtype=float32).transform`` of a fitted
    vocabulary: lower-cased word 1–2-grams, 1 + log(count), times idf, rows scaled to unit length."""

    def __init__(self, vocabulary: Sequence[str], idf: np.ndarray) -> None:
        self.index = {term: i for i, term in enumerate(vocabulary)}
        self.idf_ = np.asarray(idf)

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        rows, cols, counts = [], [], []
        for r, text in enumerate(texts):
            words = _TOKEN.findall(text.lower())
            terms = words + [" ".join(words[i : i + 2]) for i in range(len(words) - 1)]
            found: dict[int, int] = {}
            for t in terms:
                if t in self.index:
                    found[self.index[t]] = found.get(self.index[t], 0) + 1
            rows += [r] * len(found)
            cols += list(found)
            counts += list(found.values())
        weights = (np.log(np.asarray(counts, np.float64)) + 1) * self.idf_[cols]
        x = sp.csr_matrix((weights, (rows, cols)), shape=(len(texts), len(self.index)))
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        x = sp.diags(1 / np.where(norms > 0, norms, 1)) @ x
        return x.astype(np.float32).tocsr()
