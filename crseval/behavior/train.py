"""Train (or reuse) the behavior models on labelled dialogues; models are cached by signature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from crseval.behavior.classifier import ClassifierReport, evaluate_classifier, labelled_sentences
from crseval.behavior.implicit import PairClassifier
from crseval.behavior.pairs import make_pairs
from crseval.core.signature import content_hash, stable_json
from crseval.core.types import Dialogue
from crseval.core.home import crseval_home
from crseval.text.embed import Embedder


@dataclass
class TrainConfig:
    n_pairs: int = 20000
    hard: int = 2000  # hard negatives (Mixed-hard); 0 = Original design
    hard_threshold: float = 0.7
    head: str = "logreg"
    seed: int = 0
    lexical: bool = True  # TF-IDF terms beside the embedding in the strategy model
    pairs_over: str = (
        "13 strategies"  # no_strategy sentences are in no pair (crseval.behavior.pairs)
    )
    cosine: bool = True  # the embedding cosine beside the posteriors in the pair head


def train_pair_model(
    dialogues: Sequence[Dialogue],
    embedder: Embedder,
    cfg: TrainConfig = TrainConfig(),
    *,
    data_signature: str = "",
    report: ClassifierReport | None = None,
) -> tuple[PairClassifier, dict, ClassifierReport | None]:
    """(model, signature, classifier report or None when the model came from the cache)."""
    sentences = labelled_sentences(dialogues)
    # keyed by the parsed sentences themselves: a loader fix must not reuse a model trained on old text
    sig = {
        "data": data_signature,
        "sentences": content_hash(
            stable_json(sentences[["text", "label"]].values.tolist()).encode()
        ),
        "embedder": embedder.name,
        **cfg.__dict__,
    }
    path = crseval_home() / "behavior" / f"pair-{content_hash(stable_json(sig).encode())}"
    if path.with_suffix(".npz").exists() and report is None:
        return PairClassifier.load(path, embedder), sig, None
    hard_classes = {}
    if cfg.hard:
        report = report or evaluate_classifier(
            sentences, embedder, seed=cfg.seed, lexical=cfg.lexical
        )
        hard_classes = report.hard_classes(cfg.hard_threshold)
    pairs = make_pairs(
        sentences, cfg.n_pairs, hard=cfg.hard, hard_classes=hard_classes, seed=cfg.seed
    )
    model = PairClassifier(
        embedder, cfg.head, seed=cfg.seed, lexical=cfg.lexical, cosine=cfg.cosine
    )
    model.fit(sentences, pairs)
    if report is not None:
        model.confusable = report.hard_classes(cfg.hard_threshold)
    model.save(path, sig)
    return model, sig, report
