"""Trained pair models you can reuse: `behavior train` saves RUN/model.npz + model.json (NPZ arrays and
JSON, no pickle) and, with --fine-tune, the fine-tuned encoder in RUN/encoder/ (safetensors); `behavior run|meta|implicit --model RUN` use it as is; `behavior implicit --model RUN
--eval-file CSV` scores every same-strategy pair of any labelled ``text,strategy`` file and as many seeded
different-strategy pairs — random ones, then pairs of the classes the model's training classifier confused,
which the model keeps in model.json — without retraining."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, no_progress
from crseval.core.output import Output
from crseval.runs.context import RunContext


PAPER_MODEL = "paper/Mixed-hard"  # what `behavior train --design paper` keeps for reuse


def _paper_model(folder: Path):
    """(the paper design's Mixed-hard cross-encoder, its signature); it scores pairs, it does not tag."""
    import json

    from crseval.behavior.cross_encoder import CrossEncoderPairClassifier

    try:
        model = CrossEncoderPairClassifier.load(folder)
        sig = json.loads((folder / "crseval.json").read_text())["signature"]
    except (ValueError, KeyError, OSError) as e:
        raise CrsevalError(f"unreadable cross-encoder ({e})", file=folder) from None
    model.confusable = sig.get("hard_classes", {})
    return model, sig


def load_pair_model(path: Path):
    """(model, its signature) from a `behavior train` run directory or its model.json / model.npz; for a
    `--design paper` run, its Mixed-hard cross-encoder."""
    from crseval.behavior.implicit import PairClassifier
    from crseval.text.embed import ENCODERS, get_embedder
    from crseval.text.onnx_encoder import load_encoder

    p = Path(path)
    if (
        p.is_dir()
        and (p / PAPER_MODEL / "crseval.json").is_file()
        and not (p / "model.npz").exists()
    ):
        return _paper_model(p / PAPER_MODEL)
    stem = (p / "model") if p.is_dir() else p.with_suffix("")
    if not stem.with_suffix(".json").exists() or not stem.with_suffix(".npz").exists():
        raise CrsevalError(
            "no saved pair model",
            file=p,
            expected="a `behavior train` run directory (model.json + model.npz)",
            fix="run `crseval behavior train … --out DIR` and pass DIR",
        )
    try:
        meta = json.loads(stem.with_suffix(".json").read_text())
        encoder = (
            stem.parent / "encoder"
        )  # `behavior train --fine-tune`: the fine-tuned encoder (safetensors)
        if (
            "+supcon:" not in meta["embedder"]
        ):  # a frozen encoder, loaded by the name it was saved under
            embedder = get_embedder(
                {n: k for k, (n, _) in ENCODERS.items()}.get(meta["embedder"], "minilm")
            )
        elif encoder.is_dir():
            embedder = load_encoder(encoder, meta["embedder"])
        else:
            raise CrsevalError(
                "the model's fine-tuned encoder is missing",
                file=encoder,
                fix="keep the run directory of `behavior train --fine-tune` whole",
            )
        model = PairClassifier.load(stem, embedder)
    except (ValueError, KeyError, OSError) as e:
        raise CrsevalError(f"unreadable pair model ({e})", file=stem.with_suffix(".json")) from None
    return model, meta.get("signature", {})


def labelled_file(path: Path) -> pd.DataFrame:
    """A labelled ``text,strategy`` file as sentences (text, label), checked to form both kinds of pair: two
    sentences of one strategy (a same-strategy pair) and two strategies (a different-strategy pair)."""
    from crseval.behavior.pairs import strategic
    from crseval.data.io import read_rows

    _, rows = read_rows(path, required=("text", "strategy"))
    s = pd.DataFrame([{"text": r["text"], "label": r["strategy"]} for _, r in rows])
    counts = strategic(s)["label"].value_counts()
    if len(counts) < 2 or counts.max() < 2:
        what = (
            "fewer than two strategies (no_strategy sentences are in no pair): no different"
            if len(counts) < 2
            else "no two sentences of the same strategy: no same"
        )
        raise CrsevalError(
            f"{what}-strategy pair can be formed",
            file=path,
            field="strategy",
            expected="sentences of at least two strategies, at least two of one strategy",
        )
    return s


def ood_table_rows(
    models: dict, sentences: pd.DataFrame, name: str, seed: int, tag: str = "", progress=None
) -> list[dict]:
    """:func:`ood_rows` as rows of ``behavior train``'s ``pair_cv`` table: each row names the design that
    trained the model (or the paired difference), ``tag`` after it, and the pair counts."""
    return [
        {
            "design": f"OOD {name}, {r['negatives']} negatives: {r['model']}{tag}"
            if "−" in r["model"]
            else f"OOD {name}, {r['negatives']} negatives ({r['model']} model{tag})",
            **{k: r[k] for k in ("accuracy", "kappa", "kappa_lo", "kappa_hi")},
            "fold accuracy": f"{r['pairs']} pairs ({r['same_strategy_pairs']} same-strategy + "
            f"{r['pairs'] - r['same_strategy_pairs']} different)",
        }
        for r in ood_rows(models, sentences, seed, progress)
    ]


def _kappa_rows(names: list[str], preds: list, pairs: pd.DataFrame, common: dict) -> list[dict]:
    """A row per model (accuracy, κ and its 95 % interval over resampled sentences) on one kind of
    negative; with two models, then their paired κ difference (the last minus the first)."""
    from crseval.behavior.implicit import kappa, pair_kappa_draws
    from crseval.stats.bootstrap import percentile_interval

    same = pairs["same"].to_numpy()
    draws = pair_kappa_draws(same, preds, pairs["sentence_a"], pairs["sentence_b"])
    kappas = [kappa(same, p) for p in preds]
    rows = []
    for name, pred, k, d in zip(names, preds, kappas, draws):
        low, high = percentile_interval(d)
        rows.append(
            {
                "model": name,
                **common,
                "accuracy": float(np.mean(pred == same)),
                "kappa": k,
                "kappa_lo": low,
                "kappa_hi": high,
            }
        )
    if len(names) == 2:
        low, high = percentile_interval(draws[1] - draws[0])
        rows.append(
            {
                "model": f"{names[1]} − {names[0]}",
                **common,
                "accuracy": float("nan"),
                "kappa": kappas[1] - kappas[0],
                "kappa_lo": low,
                "kappa_hi": high,
            }
        )
    return rows


def ood_rows(models: dict, sentences: pd.DataFrame, seed: int, progress=None) -> list[dict]:
    """Each model (name → pair model) on every same-strategy pair of ``sentences`` and as many seeded
    different-strategy pairs: random ones (the paper's test), then — where the models kept the class pairs their
    training classifier confused (the last model's are used, so all see the same pairs) and the file has both
    classes of one — as many pairs of confusable classes (a harder test). One row per model and kind of
    negative (model, negatives, pairs, same_strategy_pairs, accuracy, kappa and its 95 % interval over resampled
    sentences), model by model; with two models, then their paired κ difference (the last minus the first, the
    same pairs and resamples) per kind of negative. ``progress(description, total)``: a bar over the pairs
    scored, advanced per model and kind of negative."""
    from crseval.behavior.pairs import ood_pairs

    names = list(models)
    confusable = models[names[-1]].confusable
    per_model: dict[str, list[dict]] = {name: [] for name in names}
    paired = []
    for negatives, hard in (("random", None), ("confusable-class", confusable)):
        if negatives != "random" and not hard:
            continue
        try:
            pairs = ood_pairs(sentences, seed=seed, hard_classes=hard)
        except ValueError:  # no confusable pair in the file: the harder test does not apply
            continue
        same = pairs["same"].to_numpy()
        tick = (progress or no_progress)(
            f"scoring OOD pairs ({negatives} negatives)", len(pairs) * len(names)
        )
        preds = []
        for n in names:
            preds.append((models[n].proba(pairs["a"], pairs["b"]) >= 0.5).astype(int))
            tick(len(pairs))
        common = {
            "negatives": negatives,
            "pairs": len(pairs),
            "same_strategy_pairs": int(same.sum()),
        }
        rows = _kappa_rows(names, preds, pairs, common)
        for name, row in zip(names, rows):
            per_model[name].append(row)
        paired += rows[len(names) :]
    return [r for name in names for r in per_model[name]] + paired


class EvalConfig(BaseModel):
    """A saved pair model on a labelled file."""

    model_config = ConfigDict(extra="forbid")
    eval_file: Path = Field(..., description="Labelled sentences CSV (text,strategy).")
    model: Path = Field(
        ..., description="A pair model saved by `behavior train` (its run directory or model.json)."
    )
    seed: int = Field(
        0, description="Seed of the different-strategy pairs.", json_schema_extra={"signed": True}
    )


def evaluate(config: EvalConfig, ctx: RunContext) -> Output:
    from crseval.data.io import dataset_info

    sentences = labelled_file(config.eval_file)  # a bad file fails before the model loads
    model, model_sig = load_pair_model(config.model)
    name = Path(config.eval_file).name
    table = pd.DataFrame(
        [
            {"design": f"{name}, {r.pop('negatives')} negatives (saved model)", **r}
            for r in ood_rows({"saved model": model}, sentences, config.seed, ctx.progress)
        ]
    ).drop(columns="model")
    out = Output(
        "pair model on a labelled file",
        table.round(3),
        tables={"pair_eval": table},
        signature={
            "data": dataset_info("labelled-sentences", config.eval_file).signature(),
            "model": model_sig,
            "metric": {"pairs": "all-same-strategy+equal-different (random; confusable-class)"},
        },
    )
    same = int(table["same_strategy_pairs"].iloc[0])
    out.section(
        "Saved pair model on a labelled file",
        f"{len(sentences)} sentences; every same-strategy pair ({same}) and as many seeded "
        "different-strategy pairs — random ones, then pairs of the classes the model's training "
        "classifier confused (where the file has them); no retraining.",
        tables=["pair_eval"],
    )
    return out


EVAL = JobSpec(
    "behavior.eval",
    EvalConfig,
    evaluate,
    "runs/behavior-eval",
    "Score a saved pair model on every pair of a labelled text,strategy file, without retraining.",
    "crseval behavior pair model evaluation",
)
