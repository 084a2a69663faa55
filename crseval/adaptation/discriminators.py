"""A panel of discriminators: can a classifier tell simulated users from real ones, and which can?

One classifier is one yardstick, and a simulator tuned until it passes one still gives itself away to
another. The panel (:data:`MEMBERS`) reads the user side of each dialogue four ways — sentence embeddings
and word/character n-grams, of single turns and of a whole dialogue — plus the dialogue's shape alone
(turns, words per turn, share of questions). Every member is a logistic regression scored by out-of-fold
predictions of 5-fold cross-validation grouped by user, its AUC with a 95 % CI from resampling users;
titles, names and numbers are masked first (:func:`mask`), so the films talked about are not the tell.
The floor of each member is two halves of the real users against each other (≈ .5). A simulator is as
like people as its **worst** member says (:func:`worst`: the highest AUC).

:func:`repeats` is the other tell of a phrasebook: the share of a source's turns that repeat, word for
word, a turn of another of its dialogues — real users repeat "hi" and "thanks", not whole requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from crseval.adaptation.realism import UserDialogue, _halves, discriminator_auc, turn_features

_NAME = re.compile(
    r"\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+\b"
)  # two capitalised words or more
_NUMBER = re.compile(r"\b\d[\d,.']*s?\b")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i'd|i've|me|my)\b")


@dataclass(frozen=True)
class Member:
    name: str
    level: str  # "turn" or "dialogue"
    reads: str  # "embedding", "n-grams" or "shape"


MEMBERS = (
    Member("embedding · turn", "turn", "embedding"),
    Member("n-grams · turn", "turn", "n-grams"),
    Member("embedding · dialogue", "dialogue", "embedding"),
    Member("n-grams · dialogue", "dialogue", "n-grams"),
    Member("shape · dialogue", "dialogue", "shape"),
)


def mask(text: str, matcher) -> str:
    """``text`` with each title the matcher reads (in the catalogue or title-like) as TITLE, runs of
    capitalised words (names) as NAME and numbers (years, decades) as NUM."""
    out, at = [], 0
    for m in sorted(matcher.find(text), key=lambda m: m.start):
        start = text.find(m.surface, m.start) if m.surface else -1
        if start < at:
            continue
        out += [text[at:start], "TITLE"]
        at = start + len(m.surface)
    return _NUMBER.sub("NUM", _NAME.sub("NAME", "".join(out) + text[at:]))


def ngram_model():
    """Word 1–2-grams and character 2–5-grams (case kept: real users' lower case is a tell), TF-IDF,
    logistic regression; the vocabulary is learned inside each fold."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    return make_pipeline(
        make_union(
            TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
            TfidfVectorizer(
                analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True, lowercase=False
            ),
        ),
        LogisticRegression(C=1.0, max_iter=2000),
    )


@dataclass
class _Side:
    """One source's dialogues read for the panel: masked turns, their embeddings and their users."""

    turns: list[str]  # masked
    raw: list[str]
    turn_group: np.ndarray
    turn_dialogue: np.ndarray  # the index of each turn's dialogue
    groups: np.ndarray  # per dialogue
    emb: np.ndarray  # per turn

    @classmethod
    def read(cls, dialogues: Sequence[UserDialogue], encode: Callable, matcher) -> "_Side":
        kept = [(i, d, t) for i, d in enumerate(dialogues) for t in d.turns if t.strip()]
        raw = [t for _, _, t in kept]
        turns = [mask(t, matcher) for t in raw]
        return cls(
            turns,
            raw,
            np.array([d.group for _, d, _ in kept]),
            np.array([i for i, _, _ in kept]),
            np.array([d.group for d in dialogues]),
            encode(turns),
        )

    def dialogue_texts(self) -> list[str]:
        texts: list[list[str]] = [[] for _ in self.groups]
        for t, d in zip(self.turns, self.turn_dialogue):
            texts[d].append(t)
        return ["\n".join(t) for t in texts]

    def _mean(self, values: np.ndarray) -> np.ndarray:
        """Per dialogue, the mean of a per-turn array (rows: turns)."""
        frame = pd.DataFrame(values).groupby(self.turn_dialogue).mean()
        return frame.reindex(range(len(self.groups)), fill_value=0.0).to_numpy()

    def shape(self) -> np.ndarray:
        """Per dialogue: log turns, mean log words per turn, share of questions."""
        turns = np.bincount(self.turn_dialogue, minlength=len(self.groups))
        words = np.log1p([len(t.split()) for t in self.raw])
        question = np.array(["?" in t for t in self.raw], float)
        return np.column_stack([np.log1p(turns), self._mean(np.column_stack([words, question]))])

    def dialogue_embedding(self) -> np.ndarray:
        return np.hstack([self._mean(self.emb), self.shape()])


def _turn_extra(side: _Side, matcher) -> np.ndarray:
    f = turn_features(side.raw, matcher)
    person = [float(bool(_FIRST_PERSON.search(t.lower()))) for t in side.raw]
    return np.column_stack([np.log1p(f["words"]), f["question"], person, f["title"]])


def _inputs(side: _Side, member: Member, matcher, keep: np.ndarray | None):
    """(x, groups) of one side for one member; ``keep``: the sampled turns of a turn-level member."""
    if member.level == "turn":
        keep = np.arange(len(side.turns)) if keep is None else keep
        if member.reads == "n-grams":
            return np.array(side.turns, dtype=object)[keep], side.turn_group[keep]
        return np.hstack([side.emb, _turn_extra(side, matcher)])[keep], side.turn_group[keep]
    if member.reads == "n-grams":
        return np.array(side.dialogue_texts(), dtype=object), side.groups
    if member.reads == "shape":
        return side.shape(), side.groups
    return side.dialogue_embedding(), side.groups


def _stack(a, b):
    return np.concatenate([a, b]) if a.dtype == object else np.vstack([a, b])


def panel(
    simulated: dict[str, list[UserDialogue]],
    real: list[UserDialogue],
    embedder,
    matcher,
    *,
    others: dict[str, list[UserDialogue]] | None = None,
    max_turns: int = 2000,
    seed: int = 0,
    n_boot: int = 2000,
) -> pd.DataFrame:
    """One row per member × source (each simulated CRS's users, each other human source) against the
    real users, and per member the floor (two halves of the real users). Turn-level members read at most
    ``max_turns`` turns per side (a seeded sample); dialogue-level ones every dialogue. A human source
    whose dialogues are part of ``real`` (one crowd of a two-crowd reference) is read against the rest of
    ``real``: the same dialogues on both sides would tell nothing."""
    rng = np.random.default_rng(seed)
    # the embedder keeps each text's vector: a phrase said a thousand times is read once
    encode = embedder.encode

    def sample(side: _Side) -> np.ndarray:
        return np.sort(rng.permutation(len(side.turns))[:max_turns])

    ref = _Side.read(real, encode, matcher)
    ref_keep = sample(ref)
    half_turn = _halves(ref.turn_group[ref_keep], rng)
    half_dialogue = np.isin(ref.groups, np.unique(ref.turn_group[ref_keep][half_turn]))
    sources = [("simulated", n, ds) for n, ds in simulated.items()]
    sources += [("human", n, ds) for n, ds in (others or {}).items()]
    sides = [(kind, name, _Side.read(ds, encode, matcher)) for kind, name, ds in sources]
    keeps = [sample(side) for _, _, side in sides]
    real_ids = np.array([d.id for d in real])
    rests = [
        ~np.isin(real_ids, [d.id for d in ds]) if kind == "human" else np.ones(len(real), bool)
        for kind, _, ds in sources
    ]
    rows = []
    for member in MEMBERS:
        model = ngram_model if member.reads == "n-grams" else None
        rx, rg = _inputs(ref, member, matcher, ref_keep)
        half = half_turn if member.level == "turn" else half_dialogue
        auc = discriminator_auc(rx, half.astype(int), rg, seed, n_boot, model)
        rows.append((member, "human (split half)", "floor", len(rx) // 2, len(rx), auc))
        in_rest = ref.turn_dialogue[ref_keep] if member.level == "turn" else np.arange(len(real))
        for (kind, name, side), keep, rest in zip(sides, keeps, rests):
            x, g = _inputs(side, member, matcher, keep)
            r = rest[in_rest]
            y = np.r_[np.ones(len(x)), np.zeros(r.sum())]
            auc = discriminator_auc(_stack(x, rx[r]), y, np.r_[g, rg[r]], seed, n_boot, model)
            rows.append((member, name, kind, len(x), int(r.sum()), auc))
    return _frame(rows)


def _frame(rows: list[tuple]) -> pd.DataFrame:
    """The panel's table from its rows (member, source, compared, units, real units, (AUC, lo, hi))."""
    return pd.DataFrame(
        [
            {
                "source": name,
                "member": m.name,
                "level": m.level,
                "compared": kind,
                "units": n,
                "real_units": n_real,
                "discriminator_auc": a,
                "discriminator_auc_lo": lo,
                "discriminator_auc_hi": hi,
            }
            for m, name, kind, n, n_real, (a, lo, hi) in rows
        ]
    )


def worst(discriminators: pd.DataFrame) -> pd.DataFrame:
    """Per source, the member that tells it from real users best (the highest AUC): how like people the
    panel says it is."""
    d = discriminators.sort_values("discriminator_auc", ascending=False, kind="mergesort")
    return (
        d.drop_duplicates("source")
        .set_index("source")
        .loc[discriminators["source"].unique()]
        .reset_index()
    )


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def repeats(sources: dict[str, list[UserDialogue]], matcher) -> pd.DataFrame:
    """Per source: its turns and the share that repeat, word for word once masked, lower-cased and
    without punctuation, a turn of another of its dialogues."""
    rows = []
    for name, dialogues in sources.items():
        seen: dict[str, set[int]] = {}
        texts = []
        for i, d in enumerate(dialogues):
            for t in d.turns:
                if t.strip():
                    key = _plain(mask(t, matcher))
                    texts.append((i, key))
                    seen.setdefault(key, set()).add(i)
        repeated = sum(len(seen[k]) > 1 for _, k in texts)
        rows.append(
            {
                "source": name,
                "dialogues": len(dialogues),
                "turns": len(texts),
                "repeated_share": repeated / len(texts) if texts else float("nan"),
            }
        )
    return pd.DataFrame(rows)
