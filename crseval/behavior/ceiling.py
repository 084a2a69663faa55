"""How far any model that reads only the sentence can go under the dataset's own labels.

Some sentences recur word for word in other dialogues ("Great!", "Hello", "I hope you enjoy it"). A model
that sees only the text gives them one answer, so where the annotators gave the same text different
strategies, no such model can be right on all of them:

* ``agreement``: of two occurrences of the same text in different dialogues, how often the labels agree;
* ``strategy_ceiling``: the best strategy accuracy on these sentences (every text gets its majority label);
* ``pair_ceiling``: the best expected accuracy on pairs of these sentences drawn the way
  :func:`crseval.behavior.pairs.make_pairs` draws them (half positive: a sentence, then another of its
  class; half negative: a sentence, then one of another class). The oracle knows every text's label
  counts in these very sentences and answers "same" where a pair is likelier under the positive draw:
  exact, from the text × label count matrix, no sampling.

These bound only the recurring sentences, the most formulaic part of the data; the other sentences cannot
be measured this way. On INSPIRED (442 recurring sentences) the labels agree 0.896 across dialogues and the
ceilings are 0.919 (strategy) and 0.927 (pairs), while the strategy classifier already scores 0.885 there:
the distance to 0.90 pair accuracy lies in the sentences that occur once (README, behavior section).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class LabelCeiling:
    texts: int  # distinct texts that occur in at least two dialogues
    sentences: int  # the sentences carrying them
    agreement: float  # same label, over pairs of occurrences in different dialogues
    strategy_ceiling: float  # majority-label share: the best text-only strategy accuracy on them
    pair_ceiling: float  # the oracle's expected accuracy on make_pairs-style pairs of them
    model_accuracy: float | None = (
        None  # a classifier's (out-of-fold) accuracy on the same sentences
    )

    def rows(self) -> pd.DataFrame:
        rows = [
            ("label agreement of identical text across dialogues", self.agreement),
            ("text-only strategy ceiling (majority label per text)", self.strategy_ceiling),
            ("text-only pair ceiling (oracle, make_pairs protocol)", self.pair_ceiling),
        ]
        if self.model_accuracy is not None:
            rows.append(
                ("strategy classifier on these sentences (out-of-fold)", self.model_accuracy)
            )
        return pd.DataFrame(
            [
                {"measure": m, "value": v, "sentences": self.sentences, "texts": self.texts}
                for m, v in rows
            ]
        )


def recurring(sentences: pd.DataFrame) -> pd.DataFrame:
    """The sentences whose exact text (surrounding spaces stripped) occurs in at least two dialogues."""
    key = sentences["text"].str.strip()
    dialogues = sentences.groupby(key)["dialogue"].transform("nunique")
    return sentences[dialogues.to_numpy() >= 2].assign(key=key[dialogues.to_numpy() >= 2])


def _cross_dialogue_agreement(rec: pd.DataFrame) -> float:
    """Pairs of occurrences of one text in different dialogues with the same label, over all such pairs."""
    same = total = 0
    for _, g in rec.groupby("key"):
        by_dialogue = pd.crosstab(g["dialogue"], g["label"]).to_numpy()
        per_label = by_dialogue.sum(axis=0)
        n = per_label.sum()
        within = (
            by_dialogue.sum(axis=1) ** 2
        ).sum()  # ordered pairs inside one dialogue (and self-pairs)
        same += (per_label**2).sum() - (by_dialogue**2).sum()
        total += n * n - within
    return float(same / total)


def pair_ceiling(counts: np.ndarray) -> float:
    """The Bayes-optimal accuracy on pairs drawn as :func:`make_pairs` draws them, from ``counts`` (text ×
    label occurrences). Positive: sentence i from the classes with ≥ 2 sentences, then j ≠ i of its class;
    negative: i from all sentences, then j from the other classes. The pairs are half and half, so the oracle
    is right on a pair with probability max(P_pos, P_neg), and its accuracy is ½ Σ max(P_pos, P_neg) over
    ordered text pairs."""
    counts = np.asarray(counts, dtype=float)
    n_class = counts.sum(axis=0)
    n = n_class.sum()
    pool = n_class >= 2
    first_pos = counts[:, pool] / n_class[pool].sum()
    second_pos = counts[:, pool] / (n_class[pool] - 1)
    p_pos = first_pos @ second_pos.T
    p_pos[np.diag_indices_from(p_pos)] -= (first_pos / (n_class[pool] - 1)).sum(axis=1)  # j ≠ i
    others = (counts.sum(axis=1, keepdims=True) - counts) / (n - n_class)  # text × label of i
    p_neg = (counts / n) @ others.T
    return float(0.5 * np.maximum(p_pos, p_neg).sum())


def label_ceiling(
    sentences: pd.DataFrame, predictions: pd.Series | None = None
) -> LabelCeiling | None:
    """The ceiling on ``sentences`` (text, label, dialogue); ``predictions`` (aligned with ``sentences``, e.g.
    a classifier's out-of-fold predictions) adds its accuracy on the same sentences. None where no text recurs
    in another dialogue, or where the recurring sentences cannot form both kinds of pair."""
    rec = recurring(sentences)
    counts = pd.crosstab(rec["key"], rec["label"])
    if counts.shape[1] < 2 or counts.sum().max() < 2:
        return None
    majority = counts.max(axis=1).sum() / len(rec)
    model = (
        None if predictions is None else float((predictions.loc[rec.index] == rec["label"]).mean())
    )
    return LabelCeiling(
        len(counts),
        len(rec),
        _cross_dialogue_agreement(rec),
        float(majority),
        pair_ceiling(counts.to_numpy()),
        model,
    )
