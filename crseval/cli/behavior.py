"""crseval behavior — does a CRS use the strategies a human recommender would?"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
import typer

from crseval.cli.output import Format, console, emit, err_console
from crseval.core.errors import CrsevalError

app = typer.Typer(no_args_is_help=True, help="Behavior alignment with human recommenders (INSPIRED strategies).")

DATA_HELP = "INSPIRED file or folder (labelled human dialogues), or 'sample' for the bundled dialogues."


def _dialogues(data: str):
    from crseval.data import load_dataset
    if data == "sample":
        return load_dataset("sample").dialogues
    return load_dataset("inspired", data)


def _split(ds, test_split: str):
    """(train dialogues, evaluated dialogues): INSPIRED's dev trains, test is evaluated (by dialogue)."""
    train = [d for d in ds if d.metadata.get("split") != test_split]
    test = [d for d in ds if d.metadata.get("split") == test_split]
    return (train, test) if train and test else (list(ds), list(ds))


def _model(train, data_sig: str, n_pairs: int, hard: int, head: str, seed: int):
    """The pair model trained on ``train`` (cached by a signature naming exactly those dialogues)."""
    from crseval.behavior.train import TrainConfig, train_pair_model
    from crseval.core.signature import content_hash
    from crseval.text.embed import get_embedder
    return train_pair_model(train, get_embedder(), TrainConfig(n_pairs, hard, 0.7, head, seed),
                            data_signature=f"{data_sig}|trained-on:{len(train)}-dialogues:"
                                           f"{content_hash(','.join(sorted(d.id for d in train)).encode(), 8)}")


@app.command()
def train(
    data: str = typer.Argument(..., help=DATA_HELP),
    pairs: int = typer.Option(20000, help="Training pairs per fold / for the final model."),
    hard: int = typer.Option(2000, help="Hard negatives (Mixed-hard); 0 for the Original design."),
    head: str = typer.Option("logreg", help="Pair head: logreg or mlp."),
    folds: int = typer.Option(5, help="Cross-validation folds (grouped by dialogue)."),
    ood: Optional[Path] = typer.Option(None, help="Labelled sentences CSV (text,strategy) for out-of-distribution "
                                                 "evaluation."),
    cross_encoder_pairs: int = typer.Option(0, help="Also fine-tune the MiniLM cross-encoder on this many pairs "
                                                    "(~32 pairs/s on 2 CPU cores; uses a GPU when present)."),
    seed: int = typer.Option(0, help="Seed for pairs and models."),
    out: Path = typer.Option(Path("runs/behavior-train"), help="Run directory."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Train the strategy classifier and the pair classifier; report grouped CV (per-class accuracy,
    confusions, pair accuracy and κ for Original and Mixed-hard) and optional OOD accuracy."""
    from crseval.behavior.classifier import evaluate_classifier, labelled_sentences
    from crseval.behavior.implicit import cross_validate, evaluate_pairs
    from crseval.behavior.pairs import make_pairs, ood_pairs
    from crseval.behavior.train import TrainConfig, train_pair_model
    from crseval.core.signature import format_signature, make_signature
    from crseval.report import write_report
    from crseval.runs import RunStore
    from crseval.text.embed import get_embedder
    ds = _dialogues(data)
    emb = get_embedder()
    sentences = labelled_sentences(ds)
    rep = evaluate_classifier(sentences, emb, n_splits=folds, seed=seed)
    rows = []
    for name, h in (("Original", 0), ("Mixed-hard", hard)):
        cv = cross_validate(sentences, emb, n_pairs=pairs, hard=h, hard_classes=rep.hard_classes(), head=head,
                            n_splits=folds, seed=seed)
        rows.append({"design": name, "accuracy": cv.accuracy, "kappa": cv.kappa,
                     "fold accuracy": " ".join(f"{a:.3f}" for a in cv.fold_accuracy)})
    model, sig, _ = train_pair_model(ds, emb, TrainConfig(pairs, hard, 0.7, head, seed),
                                     data_signature=ds.info.signature(), report=rep)
    if ood is not None:
        from crseval.data.ratings import read_rows
        _, it = read_rows(ood, required=("text", "strategy"))
        s = pd.DataFrame([{"text": r["text"], "label": r["strategy"]} for _, r in it])
        res = evaluate_pairs(model, ood_pairs(s, seed=seed, max_positive=20000))
        rows.append({"design": f"OOD {ood.name} (Mixed-hard model)", "accuracy": res["accuracy"],
                     "kappa": res["kappa"], "fold accuracy": f"{res['pairs']} pairs"})
    if cross_encoder_pairs:
        from crseval.behavior.cross_encoder import CrossEncoderPairClassifier
        from crseval.cli.progress import progress_bars
        train_d, test_d = _split(ds, "test")
        tr_s, te_s = labelled_sentences(train_d), labelled_sentences(test_d)
        tr = make_pairs(tr_s, cross_encoder_pairs, hard=hard, hard_classes=rep.hard_classes(), seed=seed)
        with progress_bars() as bars:
            ce = CrossEncoderPairClassifier(seed=seed).fit(tr, bars("fine-tuning the cross-encoder", len(tr)))
        te = make_pairs(te_s, 4000, seed=seed + 1)
        res = evaluate_pairs(ce, te)
        ce.save(Path(out) / "cross_encoder", {"pairs": cross_encoder_pairs, "hard": hard, "seed": seed})
        rows.append({"design": f"cross-encoder, {cross_encoder_pairs} Mixed-hard pairs (held-out split)",
                     "accuracy": res["accuracy"], "kappa": res["kappa"], "fold accuracy": f"{res['pairs']} test pairs"})
    store = RunStore(out)
    signature = make_signature(data=ds.info.signature(), model=sig)
    store.save_signature(signature)
    table = pd.DataFrame(rows)
    store.write_table("pair_cv", table)
    store.write_table("strategy_per_class", rep.per_class)
    store.write_table("strategy_top_confusions", rep.top_confusions)
    store.write_table("strategy_confusion", rep.confusion.reset_index())
    store.add_section("Behavior classifiers",
                      f"Strategy classifier: {rep.accuracy:.3f} accuracy over {len(sentences)} labelled sentences "
                      f"({folds}-fold CV grouped by dialogue). Pair classifier: accuracy and Cohen's κ on held-out "
                      f"dialogues' pairs.", tables=["pair_cv", "strategy_per_class", "strategy_top_confusions",
                                                    "strategy_confusion"])
    write_report(out, "crseval behavior classifiers")
    per_class = rep.per_class.merge(rep.top_confusions, on="label").round(3)
    if fmt is Format.json:  # one document, not two
        emit({"signature": format_signature(signature), "classifier": per_class.to_dict(orient="records"),
              "result": table.round(3).to_dict(orient="records")}, fmt)
        return
    emit(per_class, fmt, title="strategy classifier (grouped CV)")
    emit(table.round(3), fmt, title="pair classifier", signature=format_signature(signature))


@app.command()
def tag(
    data: str = typer.Argument(..., help=DATA_HELP),
    limit: int = typer.Option(40, help="Held-out sentences to tag (seeded sample)."),
    shots: int = typer.Option(1, help="Few-shot examples per strategy, from training dialogues (0: zero-shot only)."),
    backend: str = typer.Option("llamacpp", help="llamacpp, openai or scripted."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    test_split: str = typer.Option("test", help="Held-out INSPIRED split (the rest trains)."),
    seed: int = typer.Option(0, help="Seed of the sample and the examples."),
    out: Path = typer.Option(Path("runs/behavior-tag"), help="Run directory (LLM cache)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Compare the LLM strategy tagger (zero- and few-shot) with the trained classifier on sentences of
    held-out dialogues: accuracy and Cohen's κ against the human labels."""
    from sklearn.metrics import cohen_kappa_score

    from crseval.behavior.classifier import StrategyClassifier, labelled_sentences
    from crseval.behavior.tagger import few_shot_examples, tag as llm_tag
    from crseval.cli.main import _llm_config
    from crseval.cli.progress import progress_bars
    from crseval.llm import make_client
    from crseval.runs import RunStore
    from crseval.text.embed import get_embedder
    ds = _dialogues(data)
    train_d, test_d = _split(ds, test_split)
    train_s, test_s = labelled_sentences(train_d), labelled_sentences(test_d)
    test_s = test_s.sample(min(limit, len(test_s)), random_state=seed)
    clf = StrategyClassifier(get_embedder(), seed=seed).fit(train_s["text"], train_s["label"])
    predictions = {"classifier (MiniLM + logistic regression)": list(clf.predict(test_s["text"].tolist()))}
    store = RunStore(out)
    client = make_client(_llm_config(backend, model, base_url), store.cache_path)
    try:
        with progress_bars() as bars:
            for name, ex in [("LLM zero-shot", [])] + ([(f"LLM {shots}-shot", few_shot_examples(train_s, shots, seed))]
                                                       if shots else []):
                predictions[name] = llm_tag(client, test_s["text"].tolist(), ex, bars(name, len(test_s)))
    finally:
        client.close()
    truth = test_s["label"].tolist()
    rows = []
    for name, pred in predictions.items():
        ok = [p is not None for p in pred]
        filled = [p if p is not None else "unparsed" for p in pred]
        rows.append({"tagger": name, "sentences": len(truth), "unparsed": len(pred) - sum(ok),
                     "accuracy": float(np.mean([p == t for p, t in zip(filled, truth)])),
                     "kappa": float(cohen_kappa_score(truth, filled))})
    table = pd.DataFrame(rows)
    store.write_table("tagger_comparison", table)
    emit(table.round(3), fmt, title=f"strategy taggers on {len(truth)} held-out sentences")


@app.command()
def explicit(
    data: str = typer.Argument(..., help=DATA_HELP),
    labels: Optional[Path] = typer.Option(None, help="System strategies CSV: dialogue,turn,strategy."),
    order: int = typer.Option(1, help="History length t of the entropy model."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Human reference statistics (turns before the first recommendation, success rate, strategy
    distribution); with --labels, the system's explicit and entropy-weighted BA."""
    from crseval.behavior.explicit import (TransitionModel, entropy_weighted_ba, explicit_ba, strategy_distribution,
                                           summary_stats, turn_labels)
    from crseval.core.errors import CrsevalError
    from crseval.data._io import read_rows
    ds = _dialogues(data)
    stats = summary_stats(list(ds))
    if labels is not None:
        _, it = read_rows(labels, required=("dialogue", "turn", "strategy"))
        given: dict[str, dict[int, str]] = {}
        for line, r in it:
            try:
                given.setdefault(r["dialogue"], {})[int(r["turn"])] = r["strategy"]
            except ValueError:
                raise CrsevalError("turn is not an integer", file=labels, line=line, field="turn") from None
        evaluated = [d for d in ds if d.id in given]
        if not evaluated:
            raise CrsevalError("no dialogue id of the labels file is in the data", file=labels, field="dialogue")
        hum = [turn_labels(d) for d in evaluated]
        sysl = [[[given[d.id].get(k, "")] for k in range(len(h))] for d, h in zip(evaluated, hum)]
        model = TransitionModel.fit([[t[0] for t in turn_labels(d) if t] for d in ds], order)
        stats.update({"evaluated dialogues": len(evaluated),
                      "explicit BA (formula)": explicit_ba(sysl, hum),
                      "explicit BA (counted turns)": explicit_ba(sysl, hum, normalise="counted"),
                      "entropy-weighted BA": entropy_weighted_ba(sysl, hum, model)})
    emit(stats, fmt, title="behavior statistics")
    if fmt is Format.table:
        emit(strategy_distribution(list(ds)).round(3).reset_index().rename(columns={"index": "strategy"}), fmt,
             title="human strategy distribution")


@app.command()
def implicit(
    responses: Path = typer.Argument(..., help="System responses: JSONL/CSV with dialogue, turn, response."),
    data: str = typer.Option(..., help=DATA_HELP),
    test_split: str = typer.Option("test", help="INSPIRED split the responses answer (the rest trains)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Implicit (label-free) and explicit BA, BLEU and DIST of a responses file."""
    from crseval.behavior.evaluate import evaluate_responses, load_responses
    ds = _dialogues(data)
    train_d, test_d = _split(ds, test_split)
    model, sig, _ = _model(train_d, ds.info.signature(), 20000, 2000, "logreg", 0)
    metrics, _ = evaluate_responses(test_d, load_responses(responses), model, reference=train_d)
    emit(metrics, fmt, title=f"behavior alignment of {responses.name}")


@app.command()
def run(
    data: str = typer.Argument(..., help=DATA_HELP),
    limit: Optional[int] = typer.Option(None, help="Evaluate only the first N evaluated dialogues."),
    responses: Optional[Path] = typer.Option(None, help="Use this responses file instead of generating."),
    backend: str = typer.Option("llamacpp", help="llamacpp, openai or scripted."),
    model: Optional[str] = typer.Option(None, help="Model name or .gguf path."),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    test_split: str = typer.Option("test", help="INSPIRED split to evaluate (the rest trains the classifiers)."),
    order: int = typer.Option(1, help="History length t of the entropy model (entropy-weighted BA)."),
    tagger: str = typer.Option("classifier", help="Who labels the system's strategies for explicit BA: classifier "
                                                  "(trained on the other split) or llm (the configured backend)."),
    out: Path = typer.Option(Path("runs/behavior"), help="Run directory (generation resumes here)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """Give every recommender-turn context to a system, collect its responses and report explicit and
    implicit BA, turns before the first recommendation, strategy distributions, BLEU and DIST."""
    from crseval.behavior.evaluate import contexts, evaluate_responses, generate_responses, load_responses, \
        write_tables
    from crseval.cli.main import _llm_config
    from crseval.cli.progress import progress_bars
    from crseval.core.signature import format_signature, make_signature
    from crseval.llm import make_client
    from crseval.report import write_report
    from crseval.runs import RunStore
    ds = _dialogues(data)
    train_d, test_d = _split(ds, test_split)
    test_d = test_d[:limit] if limit else test_d
    store = RunStore(out)
    pair, sig, _ = _model(train_d, ds.info.signature(), 20000, 2000, "logreg", 0)
    if tagger not in ("classifier", "llm"):
        raise CrsevalError(f"unknown tagger {tagger!r}", field="--tagger", expected="classifier or llm")
    llm_sig: dict = {"responses": responses.name} if responses else {}
    system_labels = None
    client = None
    if responses is None or tagger == "llm":
        cfg = _llm_config(backend, model, base_url)
        client = make_client(cfg, store.cache_path)
        llm_sig.update({**client.identity(), "T": cfg.temperature, "seed": cfg.seed})
    try:
        with progress_bars() as bars:
            if responses is not None:
                resp = load_responses(responses)
            else:
                ctxs = contexts(test_d)
                resp = generate_responses(ctxs, client, store, progress=bars("system responses", len(ctxs)))
                failed = resp["response"].isna().sum()
                if failed:
                    err_console.print(f"[yellow]{failed} responses failed and are excluded "
                                      f"(see records/responses.jsonl)")
            resp = resp.dropna(subset=["response"])
            if tagger == "llm":
                from crseval.behavior.tagger import tag as llm_tag
                labels = llm_tag(client, resp["response"].tolist(), progress=bars("LLM strategy tagger", len(resp)))
                system_labels = {(str(d), int(t)): lab for d, t, lab in zip(resp["dialogue"], resp["turn"], labels)
                                 if lab is not None}
    finally:
        if client is not None:
            client.close()
    metrics, table = evaluate_responses(test_d, resp, pair, reference=train_d, order=order,
                                        system_labels=system_labels)
    signature = make_signature(data=ds.info.signature(), llm=llm_sig, model=sig,
                               metric={"entropy_order": order, "tagger": tagger})
    store.save_signature(signature)
    tables = write_tables(store, metrics, table)
    store.add_section("Behavior alignment", "Explicit BA compares the strategy of the system's response (strategy "
                      "classifier) with the human recommender's at the same turn; implicit BA is the pair classifier's "
                      "probability that both use the same strategy. The first turn of each dialogue is not counted.",
                      tables=tables)
    emit(metrics, fmt, title="behavior alignment", signature=format_signature(signature))
    if fmt is Format.table:
        console.print(f"report: [bold]{write_report(out, 'crseval behavior alignment')}[/bold]")


@app.command()
def meta(
    data: str = typer.Argument(..., help=DATA_HELP),
    ideal: Path = typer.Option(..., help="Responses of an 'ideal' system (JSONL/CSV)."),
    worst: Path = typer.Option(..., help="Responses of a 'worst' system."),
    human: Optional[Path] = typer.Option(None, help="CSV dialogue,turn,preference (A|B|same) comparing ideal (A) and "
                                                    "worst (B), for κ agreement of each metric."),
    test_split: str = typer.Option("test", help="INSPIRED split the responses answer."),
    out: Path = typer.Option(Path("runs/behavior-meta"), help="Run directory."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """How well do the metrics track quality (synthetic mixtures of ideal and worst, 10–90 %), and —
    with human preferences — how well does each metric's preference agree with humans (κ, 95 % CI)?"""
    from crseval.behavior.evaluate import evaluate_responses, load_responses
    from crseval.behavior.meta import metric_preferences, plot_quality_curve, preference_kappa, quality_curve
    from crseval.report import write_report
    from crseval.runs import RunStore
    ds = _dialogues(data)
    train_d, test_d = _split(ds, test_split)
    pair, _, _ = _model(train_d, ds.info.signature(), 20000, 2000, "logreg", 0)
    a, b = load_responses(ideal), load_responses(worst)
    keep = ["explicit BA (counted turns)", "entropy-weighted BA", "implicit BA (mean P(same))", "BLEU-4", "DIST-2"]

    def metrics(r):
        m, _ = evaluate_responses(test_d, r, pair, reference=train_d)
        return {k: m[k] for k in keep}
    curve = quality_curve(a, b, metrics)
    store = RunStore(out)
    store.write_table("quality_curve", curve)
    plot_quality_curve(curve, store.figure_path("quality_curve"))
    tables = ["quality_curve"]
    if human is not None:
        from crseval.data._io import read_rows
        _, it = read_rows(human, required=("dialogue", "turn", "preference"))
        prefs = {(r["dialogue"], int(r["turn"])): r["preference"] for _, r in it}
        _, ta = evaluate_responses(test_d, a, pair, reference=train_d)
        _, tb = evaluate_responses(test_d, b, pair, reference=train_d)
        both = ta.merge(tb, on=["dialogue", "turn"], suffixes=("_a", "_b"))
        both = both[[(d, t) in prefs for d, t in zip(both["dialogue"], both["turn"])]]
        hp = [prefs[(d, t)] for d, t in zip(both["dialogue"], both["turn"])]
        rows = []
        for name, col in [("explicit BA", "match"), ("implicit BA", "p_same")]:
            k, lo, hi = preference_kappa(metric_preferences(both[f"{col}_a"], both[f"{col}_b"]), hp)
            rows.append({"metric": name, "kappa": k, "ci_low": lo, "ci_high": hi, "items": len(hp)})
        store.write_table("preference_agreement", pd.DataFrame(rows))
        tables.append("preference_agreement")
        emit(pd.DataFrame(rows).round(3), fmt, title="agreement with human preferences")
    store.add_section("Behavior metric meta-evaluation", "Synthetic systems answer a growing share of turns with the "
                      "worst system's response; a metric that tracks quality falls as that share grows.",
                      tables=tables, figures=["quality_curve"])
    emit(curve.pivot(index="worst_share", columns="metric", values="value").round(3).reset_index(), fmt,
         title="metric value vs share of worst responses")
    if fmt is Format.table:
        console.print(f"report: [bold]{write_report(out, 'crseval behavior meta-evaluation')}[/bold]")
