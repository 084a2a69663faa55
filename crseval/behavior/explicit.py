"""Explicit behavior alignment (BA): does the system use the strategy the human recommender used?

For the k-th recommender turn of a dialogue, BA(C_k, H_k) = 1 if the system's strategy equals the
human's, else 0. Over a test collection of dialogues d with N_d recommender turns:

* ``normalise="formula"`` (as published): BA = Σ_d Σ_{k=2..N_d} BA(C_k, H_k) / Σ_d N_d — the first
  turn is not counted but stays in the denominator, so a perfect system scores (N − D)/N < 1;
* ``normalise="counted"``: the same sum divided by the number of counted turns Σ_d (N_d − 1), so a
  perfect system scores 1.

A turn's strategy is the label of its first utterance (``turn_label="first"``); with ``"any"`` a
system label matches if the human used it anywhere in the turn.

**Sentence-level BA** (``sentence_match``; metric ``explicit_ba_sentences``): INSPIRED labels every sentence
of a turn, so a turn has a *set* of strategies; the system's response is split into sentences, each
classified, and a turn scores the Jaccard overlap |S ∩ H| / |S ∪ H| of the two sets — every labelled
sentence counts, not only the first. ``no_strategy`` (greetings, small talk, bare recommendations) is not
one of the 13 strategies: a sentence without one adds nothing to a set that has strategies, and a turn whose
sentences have none is the set {no_strategy}, so two such turns match and one against a strategic turn does not.

**Entropy-weighted BA** (beyond the original): early in a dialogue human behaviour is close to random,
later it is predictable, so a late mismatch should cost more. P(B_k | B_{k−t}, …, B_{k−1}) is estimated
from human dialogues (additive smoothing α over the 14 labels, ``<s>`` padding); turn k is weighted
by 1 / max(H_k, h_min) with H_k the entropy (bits) of that distribution given the *human* history, and
BA_w = Σ w_k BA_k / Σ w_k over counted turns.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

import numpy as np
import pandas as pd

from crseval.core.registry import declared_params
from crseval.data.strategies import LABELS, NO_STRATEGY
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Turn

TurnLabels = list[list[str]]  # per recommender turn, the labels of its utterances
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def turn_labels(dialogue: Dialogue) -> TurnLabels:
    return [
        [u.strategy for u in t.utterances if u.strategy]
        for t in dialogue.turns
        if t.role.is_recommender
    ]


def split_sentences(text: str) -> list[str]:
    """A response's sentences: cut after . ! ? (or …) followed by whitespace; the whole text when there is no cut."""
    parts = [s.strip() for s in _SENTENCE_END.split(text.strip())]
    return [s for s in parts if s] or [text.strip()]


def strategy_set(labels: Iterable[str]) -> frozenset[str]:
    """The strategies of a turn's sentences; ``no_strategy`` only where no sentence has a strategy."""
    found = frozenset(lab for lab in labels if lab)
    strategic = found - {NO_STRATEGY}
    return strategic or found


def sentence_match(system: Iterable[str], human: Iterable[str]) -> float:
    """Jaccard overlap of the two turns' strategy sets (0 when either has no label)."""
    s, h = strategy_set(system), strategy_set(human)
    return len(s & h) / len(s | h) if s and h else 0.0


def _match(system: list[str], human: list[str], mode: str) -> int:
    if not system or not human:
        return 0
    return int(system[0] == human[0]) if mode == "first" else int(system[0] in human)


def explicit_ba(
    system: Sequence[TurnLabels],
    human: Sequence[TurnLabels],
    *,
    normalise: Literal["formula", "counted"] = "formula",
    turn_label: str = "first",
    skip_first: bool = True,
) -> float:
    """BA of a collection: ``system[d][k]`` and ``human[d][k]`` are the labels of turn k of dialogue d."""
    if len(system) != len(human):
        raise CrsevalError(
            f"{len(system)} system dialogues but {len(human)} human ones",
            field="system",
            expected="one system dialogue per human dialogue",
        )
    hits = counted = total = 0
    for d, (s, h) in enumerate(zip(system, human)):
        if len(s) != len(h):
            raise CrsevalError(
                f"dialogue #{d}: {len(s)} system turns vs {len(h)} human turns",
                field="system",
                expected="one system response per human recommender turn",
            )
        total += len(h)
        for k in range(1 if skip_first else 0, len(h)):
            hits += _match(s[k], h[k], turn_label)
            counted += 1
    denom = total if normalise == "formula" else counted
    return hits / denom if denom else float("nan")


@dataclass
class TransitionModel:
    """Smoothed n-gram model of human strategy sequences (one label per recommender turn)."""

    order: int
    alpha: float
    counts: dict[tuple[str, ...], Counter]
    labels: tuple[str, ...] = LABELS

    @classmethod
    def fit(
        cls, sequences: Iterable[Sequence[str]], order: int = 1, alpha: float | None = None
    ) -> "TransitionModel":
        """Counts of each strategy after each history of ``order`` strategies, smoothed by ``alpha``
        (default: ``entropy_ba``'s declared ``alpha``, crseval/behavior/metrics.py)."""
        if alpha is None:
            alpha = declared_params("entropy_ba", "behavior")["alpha"]
        counts: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        for seq in sequences:
            padded = ["<s>"] * order + list(seq)
            for k in range(order, len(padded)):
                counts[tuple(padded[k - order : k])][padded[k]] += 1
        return cls(order, alpha, dict(counts))

    def distribution(self, history: Sequence[str]) -> np.ndarray:
        ctx = tuple((["<s>"] * self.order + list(history))[-self.order :]) if self.order else ()
        c = self.counts.get(ctx, Counter())
        counts = np.array([c[lab] for lab in self.labels], dtype=float) + self.alpha
        return counts / counts.sum()

    def entropy(self, history: Sequence[str]) -> float:
        p = self.distribution(history)
        return float(-(p * np.log2(p)).sum())


def entropy_weighted_ba(
    system: Sequence[TurnLabels],
    human: Sequence[TurnLabels],
    model: TransitionModel,
    *,
    h_min: float | None = None,
    turn_label: str = "first",
    skip_first: bool = True,
) -> float:
    """``h_min``: the entropy floor (default: ``entropy_ba``'s declared ``h_min``)."""
    if h_min is None:
        h_min = declared_params("entropy_ba", "behavior")["h_min"]
    num = den = 0.0
    for s, h in zip(system, human):
        first = [t[0] if t else "no_strategy" for t in h]
        for k in range(1 if skip_first else 0, len(h)):
            w = 1.0 / max(model.entropy(first[:k]), h_min)
            num += w * _match(s[k], h[k], turn_label)
            den += w
    return num / den if den else float("nan")


# ---- dialogue-level behaviour statistics -----------------------------------------------------------
def recommends(turn: Turn, titles: Sequence[str] = ()) -> bool:
    """A turn recommends when it mentions an item (loader-annotated) or a known title. (A mention in a
    question — "have you seen X?" — counts too; INSPIRED's labels do not mark recommendations apart.)"""
    if turn.items:
        return True
    text = turn.text.lower()
    return any(t.lower() in text for t in titles)


def dialogue_stats(dialogues: Sequence[Dialogue], titles: Sequence[str] = ()) -> pd.DataFrame:
    """Per dialogue: recommender turns before the first recommendation (censored if none), outcome,
    whether it was accepted, and the strategy counts."""
    rows = []
    for d in dialogues:
        rec_turns = [t for t in d.turns if t.role.is_recommender]
        first = next((i for i, t in enumerate(rec_turns) if recommends(t, titles)), None)
        rows.append(
            {
                "dialogue": d.id,
                "recommender_turns": len(rec_turns),
                "turns_before_first_rec": first if first is not None else len(rec_turns),
                "recommended": first is not None,
                "outcome": d.metadata.get("outcome"),
                "accepted": d.metadata.get("accepted"),
            }
        )
    return pd.DataFrame(rows)


def strategy_distribution(dialogues: Sequence[Dialogue]) -> pd.Series:
    c = Counter(u.strategy for d in dialogues for u in d.utterances if u.strategy)
    total = sum(c.values())
    return pd.Series({lab: c[lab] / total if total else 0.0 for lab in LABELS}, name="share")


def summary_stats(dialogues: Sequence[Dialogue], titles: Sequence[str] = ()) -> dict[str, float]:
    s = dialogue_stats(dialogues, titles)
    acc = s["accepted"].dropna()
    good = s["outcome"].dropna()
    return {
        "dialogues": len(s),
        "mean turns before first recommendation": float(s["turns_before_first_rec"].mean()),
        "dialogues without a recommendation": int((~s["recommended"]).sum()),
        "success rate (accepted)": float(acc.astype(bool).mean()) if len(acc) else math.nan,
        "success rate (accepted and rated 4-5)": float((good == "accept_rating_good").mean())
        if len(good)
        else math.nan,
    }


def labels_ba(dialogues: Sequence[Dialogue], path, order: int = 1) -> dict[str, float]:
    """Explicit and entropy-weighted BA of a system whose strategies are given in a CSV
    ``dialogue,turn,strategy`` (turn = recommender-turn index), against the human labels."""
    from crseval.data.io import read_rows

    _, it = read_rows(path, required=("dialogue", "turn", "strategy"))
    given: dict[str, dict[int, str]] = {}
    for line, r in it:
        strategy = r["strategy"].strip()  # empty: the system's turn has no label
        if strategy and strategy not in LABELS:  # a typo must not count silently as a mismatch
            raise CrsevalError(
                f"strategy {strategy!r} is outside the taxonomy",
                file=path,
                line=line,
                field="strategy",
                expected="one of " + ", ".join(LABELS),
            )
        try:
            given.setdefault(r["dialogue"], {})[int(r["turn"])] = strategy
        except ValueError:
            raise CrsevalError(
                "turn is not an integer", file=path, line=line, field="turn"
            ) from None
    evaluated = [d for d in dialogues if d.id in given]
    if not evaluated:
        raise CrsevalError(
            "no dialogue id of the labels file is in the data", file=path, field="dialogue"
        )
    hum = [turn_labels(d) for d in evaluated]
    sysl = [[[given[d.id].get(k, "")] for k in range(len(h))] for d, h in zip(evaluated, hum)]
    model = TransitionModel.fit([[t[0] for t in turn_labels(d) if t] for d in dialogues], order)
    return {
        "evaluated dialogues": len(evaluated),
        "explicit_ba": explicit_ba(sysl, hum),
        "explicit_ba_counted": explicit_ba(sysl, hum, normalise="counted"),
        "entropy_ba": entropy_weighted_ba(sysl, hum, model),
    }
