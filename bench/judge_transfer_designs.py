"""Designs for a judge on a CRS it has never met (#94): each scored leave-one-system-out on CRSArena-Eval's
362 shared dialogues — fitted on eight CRSs, read on the ninth, in turn — with its pooled Pearson r (95 % CI
over dialogues), its lowest held-out CRS and how many held-out CRSs it reads more than .20 below FACE's
published predictions (the named peer, on the same dialogues).

The designs share the shipped judge's evidence (the embedded LLM's dialogue-overall reading and its hidden
states over each reply and the user's next message, the replies' sentence embeddings, people's turn labels
for the turn model) and vary how it is combined: the turn model's penalty (chosen by leave-one-turn-out, as
shipped, or fixed), its features (states only, embeddings only, without the user's next message, with the
user's previous message, rows scaled to one length), its labels (with the dialogue's rating as a third),
the readings passed up (the question's expected score or its digits; the turn model's mean or mean,
minimum and last — the shipped judge is compact: the expected score and the means), the dialogue-level
model (ridge with its penalty chosen by grouped CV, as shipped; equal weights of standardised readings; a
ridge on the dialogue's mean states). Ridge fits run in their dual (kernel) form over globally standardised features,
which differs from the shipped code's fold-wise standardisation only in the scale each fold sees: the
first row reproduces the shipped design's pooled r to .01, its per-CRS r to about .1 (compare designs
with each other here, and the shipped judge with FACE in `crseval/validated/judge_transfer.json`).

usage: python bench/judge_transfer_designs.py [--cache llm_cache.sqlite]
(without a cache the LLM reads each dialogue once: 362 calls, ~1 h on 2 cores)
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import _record as record
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "judgments" / "crsarena_eval"
ALPHAS = np.logspace(-2, 4, 25)
ASPECT = "dialogue-overall"


def readings(cache: Path | None, tmp: Path):
    """The pooled items, their LLM readings with hidden states, turn rows and labels (the fit's own code)."""
    from crseval.api import context
    from crseval.core.config import validate
    from crseval.judge import fit as F
    from crseval.judge.calibrated import feature_matrix
    from crseval.judge.decomposed import HIDDEN
    from crseval.judge.fit_config import JudgeFitConfig
    from crseval.judge.turn_model import (
        _reply_and_reaction,
        embed_turns,
        embedder,
        turn_features,
        turn_labels,
    )
    from crseval.runs.store import RunStore

    if cache:
        shutil.copy(cache, tmp / "llm_cache.sqlite")
    config = validate(
        JudgeFitConfig,
        {"data": [str(DATA / "crs_arena_eval_train.json")], "questions": [ASPECT], "turn_model": True,
         "llm_states": True, "rules": False, "cv_groups": "system"},
    )  # fmt: skip
    ctx = context(RunStore(tmp))
    train = F._load(config.data, config.level, None, 0, "train", "system")
    items = [it for s in train for it in s.items]
    probs = F._readings(config, F._client(config, [ASPECT], ctx), [ASPECT], items, ctx)
    pooled = F._pooled(train, F._aspects(config, train))
    face = F._published(DATA / "face_run_train.json", train)[ASPECT]
    embed_turns([it.dialogue for it in items], config.encoder, ctx.progress)
    its = pooled.items
    return {
        "systems": np.array([it.group.split(":", 1)[1] for it in its]),
        "y": np.array([it.labels[ASPECT] for it in its]),
        "face": np.array([face.get(it.id, np.nan) for it in its]),
        "question": feature_matrix(its, [ASPECT], probs, rules=False),
        "embedding": turn_features([it.dialogue for it in its], embedder(config.encoder)),
        # per assistant turn, its reply's states beside the user's next message's (the shipped rows)
        "states": [_reply_and_reaction(it.dialogue, np.asarray(probs[it.id][HIDDEN], float))
                   for it in its],
        "labels": [turn_labels(it.dialogue) for it in its],
        "recommender": [[k for k, u in enumerate(it.dialogue.utterances) if u.role.is_recommender]
                        for it in its],
        # per assistant turn, the states of the user's message before it (the request it answers)
        "previous": [previous_user(it.dialogue, np.asarray(probs[it.id][HIDDEN], float)) for it in its],
    }  # fmt: skip


def previous_user(dialogue, states: np.ndarray) -> np.ndarray:
    """Per assistant turn, the states of the user's message before it (NaN where none)."""
    utts = list(dialogue.utterances)
    none = np.full(states.shape[1], np.nan)
    return np.array([
        next((states[j] for j in range(i - 1, -1, -1) if not utts[j].role.is_recommender), none)
        for i, u in enumerate(utts) if u.role.is_recommender
    ]).reshape(-1, states.shape[1])  # fmt: skip


class Turns:
    """Every assistant turn: its dialogue, its people's labels (with ``dialogue_label``, the dialogue's own
    rating too, as every turn's label) and a kernel per feature set."""

    def __init__(self, d: dict, dialogue_label: bool = False) -> None:
        self.d = d
        self.dialogue, self.y = [], {"interestingness": [], "relevance": []}
        for i, (lab, rec) in enumerate(zip(d["labels"], d["recommender"])):
            for u in rec:
                self.dialogue.append(i)
                for a in self.y:
                    self.y[a].append(lab.get(u, {}).get(a, np.nan))
        self.dialogue = np.array(self.dialogue)
        self.y = {a: np.array(v, float) for a, v in self.y.items()}
        if dialogue_label:
            self.y[ASPECT] = d["y"][self.dialogue].astype(float)
        self._eig: dict = {}

    def kernel(self, features: str) -> np.ndarray:
        rows = [
            {
                "embedding+states": np.hstack([E, S]),
                "embedding+states (cosine)": np.hstack([E, S]),
                "embedding+states+previous": np.hstack([E, S, P]),
                "states": S,
                "embedding": E,
                "embedding+reply states": np.hstack([E, S[:, : S.shape[1] // 2]]),
            }[features]
            for E, S, P in zip(
                self.d["embedding"], self.d["states"], self.d["previous"]
            )  # fmt: skip
        ]
        return standardised_kernel(np.vstack(rows), cosine=features.endswith("(cosine)"))

    def of(self, dialogues: np.ndarray) -> np.ndarray:
        return np.where(np.isin(self.dialogue, dialogues))[0]

    def fit(self, K, dialogues, alpha):
        T = self.of(dialogues)
        models = {}
        for a, y in self.y.items():
            keep = T[~np.isnan(y[T])]
            models[a] = KernelRidge(K, keep, y[keep], alpha, self._eig)
        return models

    def aggregate(self, models, dialogues, aggregates):
        T = self.of(dialogues)
        P = np.column_stack([m.predict(T) for m in models.values()])
        out = []
        for i in dialogues:
            p = P[self.dialogue[T] == i]
            pick = {"mean": p.mean(0), "min": p.min(0), "last": p[-1]}
            out.append(np.concatenate([pick[g] for g in aggregates]))
        return np.round(np.array(out), 2)

    def cross_fitted(self, K, train, test, alpha, aggregates, systems):
        """The shipped scheme: training dialogues' features from turn models that never saw their
        system's turns (5 grouped folds), the test dialogues' from one fitted on all training turns."""
        inside = np.zeros((len(train), len(self.y) * len(aggregates)))
        for a, b in GroupKFold(5).split(train, groups=systems[train]):
            inside[b] = self.aggregate(self.fit(K, train[a], alpha), train[b], aggregates)
        return inside, self.aggregate(self.fit(K, train, alpha), test, aggregates)


def standardised_kernel(X: np.ndarray, cosine: bool = False) -> np.ndarray:
    """Linear kernel of the standardised rows (missing values read as the mean); ``cosine``: each row scaled
    to the mean row's length first, so a turn's direction counts, not its size."""
    X = np.where(np.isnan(X), np.nanmean(X, 0), X)
    sd = X.std(0)
    Z = (X - X.mean(0)) / np.where(sd == 0, 1, sd)
    if cosine:
        norm = np.linalg.norm(Z, axis=1, keepdims=True)
        Z *= np.mean(norm) / np.where(norm == 0, 1, norm)
    return Z @ Z.T


class KernelRidge:
    """Ridge with an intercept in its dual form; ``alpha`` None: chosen by exact leave-one-out (as
    sklearn's RidgeCV, the intercept left unpenalised)."""

    def __init__(self, K, T, y, alpha, memo) -> None:
        key = (id(K), T.tobytes())
        if key not in memo:
            Ktt = K[np.ix_(T, T)]
            cm, tm = Ktt.mean(0), Ktt.mean()
            lam, V = np.linalg.eigh(Ktt - cm[None, :] - cm[:, None] + tm)
            memo[key] = cm, tm, np.clip(lam, 0, None), V
        self.K, self.T = K, T
        self.cm, self.tm, lam, V = memo[key]
        self.ym = y.mean()
        Vy = V.T @ (y - self.ym)
        if alpha is None:
            icpt = np.argmax(np.abs(V.sum(0)))
            errors = []
            for a in ALPHAS:
                w = 1 / (lam + a)
                w[icpt] = 0
                errors.append(np.mean(((V @ (Vy * w)) / ((V**2) @ w)) ** 2))
            alpha = ALPHAS[int(np.argmin(errors))]
        self.c = V @ (Vy / (lam + alpha))

    def predict(self, idx):
        Kx = self.K[np.ix_(idx, self.T)]
        return (Kx - Kx.mean(1, keepdims=True) - self.cm[None, :] + self.tm) @ self.c + self.ym


def grouped_ridge(X, y, groups):
    """The shipped dialogue-level model: a standardised ridge, its penalty chosen by grouped 5-fold CV."""
    folds = list(GroupKFold(5).split(X, y, groups))

    def error(a):
        return sum(
            ((make_pipeline(StandardScaler(), Ridge(alpha=a)).fit(X[tr], y[tr]).predict(X[te])
              - y[te]) ** 2).sum()
            for tr, te in folds
        )  # fmt: skip

    best = min(ALPHAS, key=error)
    return make_pipeline(StandardScaler(), Ridge(alpha=best)).fit(X, y).predict


def equal_weights(X, y, groups):
    """Standardised readings (on the training dialogues), signed by their correlation with people,
    summed with equal weights, then mapped onto the people's scale: nothing to overfit but the signs."""
    mu, sd = X.mean(0), np.where(X.std(0) == 0, 1, X.std(0))
    Z = (X - mu) / sd
    signs = np.sign([np.corrcoef(Z[:, j], y)[0, 1] for j in range(X.shape[1])])
    slope = np.polyfit(Z @ signs, y, 1)
    return lambda Xt: np.polyval(slope, ((Xt - mu) / sd) @ signs)


def loso(d, features):
    """Out-of-system predictions: ``features(train, test)`` → (X train, X test, combiner)."""
    pred = np.empty(len(d["y"]))
    for s in np.unique(d["systems"]):
        te, tr = np.where(d["systems"] == s)[0], np.where(d["systems"] != s)[0]
        A, B, combine = features(tr, te)
        pred[te] = combine(A, d["y"][tr], d["systems"][tr])(B)
    return pred


def designs(d: dict):
    turns, weak = Turns(d), Turns(d, dialogue_label=True)
    Q, S = d["question"], d["systems"]
    kernels = {
        f: turns.kernel(f)
        for f in ("embedding+states", "states", "embedding", "embedding+reply states",
                  "embedding+states (cosine)", "embedding+states+previous")
    }  # fmt: skip

    def turn_design(features, alpha, aggregates, question, combine, labels=turns):
        def make(tr, te):
            a, b = labels.cross_fitted(kernels[features], tr, te, alpha, aggregates, S)
            return np.hstack([Q[tr][:, question], a]), np.hstack([Q[te][:, question], b]), combine

        return make

    every, expected = list(range(Q.shape[1])), [Q.shape[1] - 1]
    shipped = ("mean", "min", "last")
    yield (
        "shipped (--compact): the question's expected score + the turn model's mean relevance and"
        " interestingness (reply + states of the reply and the user's next message, LOO penalty),"
        " grouped ridge",
        turn_design("embedding+states", None, ("mean",), expected, grouped_ridge),
    )
    yield (
        "the full layout: question digits + turn mean, minimum and last (the judge shipped before)",
        turn_design("embedding+states", None, shipped, every, grouped_ridge),
    )
    yield (
        "full layout, turn model without the user's next message (shipped before that)",
        turn_design("embedding+reply states", None, shipped, every, grouped_ridge),
    )
    yield (
        "full layout, turn-model penalty fixed at 1e4",
        turn_design("embedding+states", 1e4, shipped, every, grouped_ridge),
    )
    yield (
        "full layout, turn model on the LLM states only",
        turn_design("states", None, shipped, every, grouped_ridge),
    )
    yield (
        "full layout, turn model on the sentence embeddings only",
        turn_design("embedding", None, shipped, every, grouped_ridge),
    )
    yield (
        "question digits + turn means only",
        turn_design("embedding+states", None, ("mean",), every, grouped_ridge),
    )
    yield (
        "question's expected score + turn mean, minimum and last",
        turn_design("embedding+states", None, shipped, expected, grouped_ridge),
    )
    yield (
        "equal weights: mean relevance, mean interestingness (states), question",
        turn_design("states", None, ("mean",), expected, lambda X, y, g: equal_weights(X, y, g)),
    )
    yield (
        "equal weights: mean relevance, mean interestingness (reply + states), question",
        turn_design(
            "embedding+states", None, ("mean",), expected, lambda X, y, g: equal_weights(X, y, g)
        ),
    )
    yield (
        "compact, turn model also reading the user's previous message (the request)",
        turn_design("embedding+states+previous", None, ("mean",), expected, grouped_ridge),
    )
    yield (
        "compact, turn model on length-normalised (cosine) rows",
        turn_design("embedding+states (cosine)", None, ("mean",), expected, grouped_ridge),
    )
    yield (
        "compact + a third turn label: the dialogue's own rating on each of its turns",
        turn_design("embedding+states", None, ("mean",), expected, grouped_ridge, weak),
    )
    mean_states = np.array([s[:, : s.shape[1] // 2].mean(0) for s in d["states"]])
    K = standardised_kernel(mean_states)
    yield "ridge on the dialogue's mean LLM states (no turn labels)", lambda tr, te: (
        tr, te, lambda A, y, g: KernelRidge(K, A, y, None, {}).predict)  # fmt: skip


def main() -> int:
    from crseval.stats.correlation import correlation_ci

    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, help="an earlier fit's llm_cache.sqlite to start from")
    a = ap.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the shared data)")
        return 0
    record.data(DATA / "crs_arena_eval_train.json", DATA / "face_run_train.json")
    with tempfile.TemporaryDirectory() as tmp:
        d = readings(a.cache, Path(tmp))
    y, face, S = d["y"], d["face"], d["systems"]
    systems = list(np.unique(S))
    has = ~np.isnan(face)
    peer = {s: np.corrcoef(face[(S == s) & has], y[(S == s) & has])[0, 1] for s in systems}
    rows = []
    for name, make in [("FACE (published predictions: the named peer)", None), *designs(d)]:
        pred = face if make is None else loso(d, make)
        ok = ~np.isnan(pred)
        r, lo, hi, _ = correlation_ci(pred[ok], y[ok], n_boot=1000, seed=0)
        per = {s: np.corrcoef(pred[(S == s) & ok], y[(S == s) & ok])[0, 1] for s in systems}
        rows.append({"design": name, "pooled r": r, "lo": lo, "hi": hi,
                     "lowest CRS": min(per.values()),
                     "CRSs > .20 below FACE": sum(per[s] < peer[s] - 0.20 for s in systems),
                     **{s: per[s] for s in systems}})  # fmt: skip
        print(f"{name:90s} {r:.3f} [{lo:.3f}, {hi:.3f}]", flush=True)
    record.table(
        "Leave-one-system-out on CRSArena-Eval's 362 shared dialogues, dialogue overall: each design's "
        "pooled Pearson r (95 % CI), its lowest held-out CRS, the held-out CRSs it reads > .20 below FACE, "
        "and r per held-out CRS",
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
