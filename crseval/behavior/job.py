"""The behavior-alignment jobs: ``tag`` (LLM tagger vs classifier), ``run`` (a system answers every recommender turn; explicit, entropy-weighted and
implicit BA, BLEU, DIST) and ``meta`` (do the metrics track quality and agree with people?)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.errors import CrsevalError
from crseval.llm.planning import done_calling
from crseval.core.job import JobSpec, Progress
from crseval.core.numbers import counted
from crseval.core.registry import label, param_signatures
from crseval.core.output import Output
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext
from crseval.simulation.targets import Target, target_input

DATA_HELP = (
    "INSPIRED file or folder (labelled human dialogues), or 'sample' for the bundled dialogues."
)
SPLIT_HELP = "Held-out INSPIRED split (the rest trains the classifiers)."


def data_field():
    return Field(..., description=DATA_HELP, json_schema_extra={"argument": True})


def dialogues(data: str):
    from crseval.data import load_dataset

    return load_dataset("sample").dialogues if data == "sample" else load_dataset("inspired", data)


def split(ds, test_split: str):
    """(train dialogues, evaluated dialogues): INSPIRED's dev trains, test is evaluated (by dialogue)."""
    train = [d for d in ds if d.metadata.get("split") != test_split]
    test = [d for d in ds if d.metadata.get("split") == test_split]
    return (train, test) if train and test else (list(ds), list(ds))


def pair_model(train, data_sig: str, seed: int = 0, saved: Path | None = None):
    """The pair model: ``saved`` (from `behavior train`) when given, else the default model trained on
    ``train`` (cached by a signature naming exactly those dialogues)."""
    if saved is not None:
        from crseval.behavior.reuse import load_pair_model

        model, sig = load_pair_model(saved)
        if not hasattr(model, "predict_strategy"):
            raise CrsevalError(
                "a --design paper model scores pairs only; this command also tags strategies",
                file=saved,
                fix="score pairs with it: `behavior implicit --model RUN --eval-file FILE`; "
                "pass a default-design `behavior train` run here",
            )
        return model, sig, None
    from crseval.behavior.train import TrainConfig, train_pair_model
    from crseval.core.signature import content_hash
    from crseval.text.embed import get_embedder

    ids = content_hash(",".join(sorted(d.id for d in train)).encode(), 8)
    return train_pair_model(
        train,
        get_embedder(),
        TrainConfig(20000, 2000, 0.7, "logreg", seed),
        data_signature=f"{data_sig}|trained-on:{len(train)}-dialogues:{ids}",
    )


# ---- tag -----------------------------------------------------------------------------------------
class TagConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    data: str = data_field()
    limit: int = Field(40, ge=1, description="Held-out sentences to tag (seeded sample).")
    shots: int = Field(
        1,
        ge=0,
        le=10,
        description="Few-shot examples per strategy, from training dialogues (0: zero-shot only).",
        json_schema_extra={"signed": True},
    )
    llm: LLMConfig = LLMConfig()
    test_split: str = Field("test", description=SPLIT_HELP)
    seed: int = Field(
        0, description="Seed of the sample and the examples.", json_schema_extra={"signed": True}
    )


def _agreement(predictions: dict[str, list], truth: list[str]) -> pd.DataFrame:
    """Each tagger's accuracy and Cohen's κ against the human labels (an unparsed answer is wrong)."""
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    rows = []
    for name, pred in predictions.items():
        filled = [p if p is not None else "unparsed" for p in pred]
        rows.append(
            {
                "tagger": name,
                "sentences": len(truth),
                "unparsed": sum(p is None for p in pred),
                "accuracy": float(np.mean([p == t for p, t in zip(filled, truth)])),
                "kappa": float(cohen_kappa_score(truth, filled)),
            }
        )
    return pd.DataFrame(rows)


def tag(config: TagConfig, ctx: RunContext) -> Output:
    from crseval.behavior.classifier import StrategyClassifier, labelled_sentences
    from crseval.behavior.tagger import few_shot_examples, tag as llm_tag
    from crseval.text.embed import get_embedder

    ds = dialogues(config.data)
    train_d, test_d = split(ds, config.test_split)
    train_s, test_s = labelled_sentences(train_d), labelled_sentences(test_d)
    test_s = test_s.sample(min(config.limit, len(test_s)), random_state=config.seed)
    clf = StrategyClassifier(get_embedder(), seed=config.seed).fit(
        train_s["text"], train_s["label"]
    )
    predictions = {
        "classifier (MiniLM + TF-IDF, logistic regression)": list(
            clf.predict(test_s["text"].tolist())
        )
    }
    client = ctx.llm(config.llm, "tagger")
    shots = (
        [(f"LLM {config.shots}-shot", few_shot_examples(train_s, config.shots, config.seed))]
        if config.shots
        else []
    )
    try:
        for name, ex in [("LLM zero-shot", [])] + shots:
            predictions[name] = llm_tag(
                client, test_s["text"].tolist(), ex, ctx.progress(name, len(test_s))
            )
        identity = client.identity()
    finally:
        client.close()
    truth = test_s["label"].tolist()
    table = _agreement(predictions, truth)
    out = Output(
        f"strategy taggers on {len(truth)} held-out sentences",
        table.round(3),
        tables={"tagger_comparison": table},
        signature={
            "data": ds.info.signature(),
            "llm": identity,
            "metric": {"sentences": len(truth)},
        },
    )
    out.section(
        "Strategy taggers",
        "Accuracy and Cohen's κ of each tagger against the human labels of "
        "sentences from held-out dialogues.",
        tables=["tagger_comparison"],
    )
    return out


# ---- run -----------------------------------------------------------------------------------------
class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    data: str = data_field()
    limit: int | None = Field(
        None, ge=1, description="Evaluate only the first N evaluated dialogues."
    )
    responses: Path | None = Field(
        None,
        description="Use this responses file (JSONL/CSV: dialogue, turn, response) "
        "instead of generating.",
    )
    system: Target = Field(
        None,
        description="Your own system answers instead of the LLM: 'module:function' "
        "(a module in the working folder is found; from Python, the function itself) or an "
        "http(s):// endpoint, both speaking the plug-in protocol (see the README).",
    )
    llm: LLMConfig = LLMConfig()
    test_split: str = Field("test", description=SPLIT_HELP)
    order: int = Field(
        1,
        ge=0,
        le=5,
        description="History length t of the entropy model (entropy-weighted BA).",
        json_schema_extra={"signed": True},
    )
    tagger: Literal["classifier", "llm"] = Field(
        "classifier",
        description="Who labels the system's strategies for "
        "explicit BA: classifier (trained on the other split) or llm.",
        json_schema_extra={"signed": True},
    )
    pair_model: Path | None = Field(
        None,
        description="A pair model saved by `behavior train` (its run directory, or "
        "model.json): used as is, nothing is retrained.",
    )
    retry_failed: bool = Field(
        False,
        description="Ask your system again for the responses this run directory recorded as failed "
        "(after fixing it; its new version is recorded).",
        json_schema_extra={"invocation": True},
    )

    def data_files(self) -> dict[str, Path | str]:
        """The system's module file or given function's source (never its folder) is input data."""
        found = target_input(self.system, Path.cwd())
        return {"system": found} if found is not None else {}


def metrics_table(metrics: dict[str, float]) -> pd.DataFrame:
    """A metrics dict (registry names) as rows: metric, label, value."""
    return pd.DataFrame(
        [{"metric": k, "label": label(k, "behavior"), "value": v} for k, v in metrics.items()]
    )


def _plugin(target: str):
    from crseval.simulation.plugins import CallableCRS, HttpCRS, load_callable

    if target.startswith(("http://", "https://")):
        return HttpCRS("system", target)
    return CallableCRS("system", load_callable(target, Path.cwd(), where="system"))


def _responses(config: RunConfig, test_d, client, ctx: RunContext) -> tuple[pd.DataFrame, int]:
    """(responses, how many could not be generated, the first one's error)."""
    from crseval.behavior.evaluate import (
        contexts,
        generate_responses,
        generate_with,
        load_responses,
    )

    if config.responses is not None:
        return load_responses(config.responses), 0, ""
    ctxs = contexts(test_d)
    bar = ctx.progress("system responses", len(ctxs))
    resp = (
        generate_with(ctxs, _plugin(config.system), ctx, progress=bar, retry=config.retry_failed)
        if config.system
        else generate_responses(ctxs, client, ctx, progress=bar)
    )
    bad = resp[resp["response"].isna()]
    if len(bad):
        ctx.log(
            f"WARNING {len(bad)} responses failed and are excluded (see records/responses.jsonl)"
        )
    first = str(bad["error"].iloc[0]) if len(bad) and "error" in bad else ""
    return resp.dropna(subset=["response"]), len(bad), first


def _client(config: RunConfig, ctx: RunContext):
    """(the LLM client — the CRS when no responses or system are given, the tagger with --tagger llm —,
    the run's llm signature)."""
    llm_sig: dict = (
        {"responses": config.responses.name}
        if config.responses
        else {"system": config.system}
        if config.system
        else {}
    )
    generates = config.responses is None and config.system is None
    if not (generates or config.tagger == "llm"):
        return None, llm_sig
    role = " and ".join(
        r for r, on in (("crs", generates), ("tagger", config.tagger == "llm")) if on
    )
    client = ctx.llm(config.llm, role)
    llm_sig.update({**client.identity(), "T": config.llm.temperature, "seed": config.llm.seed})
    return client, llm_sig


def _tagged(client, resp: pd.DataFrame, progress: Progress) -> dict[tuple[str, int], str]:
    """(dialogue, turn) → the strategy the LLM tagger gave the response (where it gave one)."""
    from crseval.behavior.tagger import tag as llm_tag

    labels = llm_tag(
        client, resp["response"].tolist(), progress=progress("LLM strategy tagger", len(resp))
    )
    return {
        (str(d), int(t)): lab
        for d, t, lab in zip(resp["dialogue"], resp["turn"], labels)
        if lab is not None
    }


def run(config: RunConfig, ctx: RunContext) -> Output:
    from crseval.behavior.evaluate import behavior_tables, evaluate_responses, load_responses

    if config.responses is not None:
        load_responses(config.responses)  # a bad file fails here, before any training
    if config.system:
        _plugin(config.system)  # and an unimportable plug-in too
    ds = dialogues(config.data)
    train_d, test_d = split(ds, config.test_split)
    test_d = test_d[: config.limit] if config.limit else test_d
    loaded = ctx.progress("pair model (the encoder, then the cached model or a new one)", 1)
    pair, model_sig, _ = pair_model(train_d, ds.info.signature(), saved=config.pair_model)
    loaded(1)
    client, llm_sig = _client(config, ctx)
    try:
        resp, failed, first = _responses(config, test_d, client, ctx)
        system_labels = _tagged(client, resp, ctx.progress) if config.tagger == "llm" else None
    finally:
        if client is not None:
            client.close()
    done_calling()  # a planning run ends here: scoring calls no model
    metrics, table = evaluate_responses(
        test_d, resp, pair, reference=train_d, order=config.order, system_labels=system_labels
    )
    out = Output(
        "behavior alignment",
        metrics_table(metrics),
        signature={
            "data": ds.info.signature(),
            "llm": llm_sig,
            "model": model_sig,
            "metric": param_signatures(metrics, "behavior"),
        },
    )
    tables = behavior_tables(metrics, table)
    out.tables.update(tables)
    out.section(
        "Behavior alignment",
        "Explicit BA compares the strategy of the system's response (strategy "
        "classifier) with the human recommender's at the same turn; implicit BA is the pair classifier's "
        "probability that both use the same strategy. The first turn of each dialogue is not counted.",
        tables=list(tables),
    )
    if failed:
        out.failures = (
            f"{counted(failed, 'response')} could not be generated (first: {first}; all in records/"
            "responses.jsonl); BA is computed over the answered turns"
        )
    return out


# ---- meta ----------------------------------------------------------------------------------------
class MetaConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    data: str = data_field()
    ideal: Path = Field(
        ...,
        description="Responses of an 'ideal' system (JSONL/CSV).",
        json_schema_extra={"signed": True},
    )
    worst: Path = Field(
        ..., description="Responses of a 'worst' system.", json_schema_extra={"signed": True}
    )
    human: Path | None = Field(
        None,
        description="CSV dialogue,turn,preference (A|B|same) comparing ideal (A) and "
        "worst (B), for κ agreement of each metric.",
    )
    test_split: str = Field("test", description="INSPIRED split the responses answer.")
    pair_model: Path | None = Field(
        None,
        description="A pair model saved by `behavior train` (its run directory, or "
        "model.json): used as is, nothing is retrained.",
    )
    n_boot: int = Field(
        200,
        ge=0,
        description="Dialogue resamples for each mixture's 95 % band (0: no band).",
        json_schema_extra={"signed": True},
    )
    seed: int = Field(
        0,
        description="Seed of the mixtures' order and of the resamples.",
        json_schema_extra={"signed": True},
    )


def _human_agreement(path: Path, test_d, train_d, pair, a, b) -> pd.DataFrame:
    from crseval.behavior.evaluate import evaluate_responses
    from crseval.behavior.meta import metric_preferences, preference_kappa
    from crseval.data.io import read_rows

    _, it = read_rows(path, required=("dialogue", "turn", "preference"))
    prefs = {}
    for line, r in it:
        try:
            prefs[(r["dialogue"], int(r["turn"]))] = r["preference"]
        except ValueError:
            raise CrsevalError(
                "turn is not an integer", file=path, line=line, field="turn"
            ) from None
    _, ta = evaluate_responses(test_d, a, pair, reference=train_d)
    _, tb = evaluate_responses(test_d, b, pair, reference=train_d)
    both = ta.merge(tb, on=["dialogue", "turn"], suffixes=("_a", "_b"))
    both = both[[(d, t) in prefs for d, t in zip(both["dialogue"], both["turn"])]]
    hp = [prefs[(d, t)] for d, t in zip(both["dialogue"], both["turn"])]
    rows = []
    for name, col in [("explicit BA", "match"), ("implicit BA", "p_same")]:
        k, lo, hi = preference_kappa(metric_preferences(both[f"{col}_a"], both[f"{col}_b"]), hp)
        rows.append({"metric": name, "kappa": k, "ci_lo": lo, "ci_hi": hi, "items": len(hp)})
    return pd.DataFrame(rows)


def meta(config: MetaConfig, ctx: RunContext) -> Output:
    from crseval.behavior.evaluate import evaluate_responses, load_responses
    from crseval.behavior.meta import FRACTIONS, plot_quality_curve, quality_curve

    a, b = load_responses(config.ideal), load_responses(config.worst)
    ds = dialogues(config.data)
    train_d, test_d = split(ds, config.test_split)
    pair, model_sig, _ = pair_model(train_d, ds.info.signature(), saved=config.pair_model)

    curve = quality_curve(
        a,
        b,
        lambda r: evaluate_responses(test_d, r, pair, reference=train_d)[1],
        n_boot=config.n_boot,
        seed=config.seed,
    )
    out = Output(
        "metric value vs share of worst responses",
        curve.pivot(index="worst_share", columns="metric", values="value")[
            list(dict.fromkeys(curve["metric"]))
        ]
        .round(3)
        .reset_index(),
        tables={"quality_curve": curve},
        signature={
            "data": ds.info.signature(),
            "model": model_sig,
            "metric": {"mixtures": "exact nested shares " + ",".join(f"{f:g}" for f in FRACTIONS)},
        },
    )
    out.figure(
        "quality_curve",
        lambda path: plot_quality_curve(curve.assign(metric=curve["metric"].map(label)), path),
        "Each metric, unscaled, as exactly 0, 10, …, 100 % of the turns are answered by the worst "
        "system (bands: 95 % bootstrap over dialogues); a metric that tracks quality falls",
    )
    if config.human is not None:
        agree = out.table(
            "preference_agreement",
            _human_agreement(config.human, test_d, train_d, pair, a, b),
        )
        out.details["agreement with human preferences"] = agree.round(3)
    out.section(
        "Behavior metric meta-evaluation",
        "Synthetic systems answer a growing share of turns with the "
        "worst system's response; a metric that tracks quality falls as that share grows.",
        tables=["quality_curve", "preference_agreement"],
        figures=["quality_curve"],
    )
    return out


TAG = JobSpec(
    "behavior.tag",
    TagConfig,
    tag,
    "runs/behavior-tag",
    "Compare the LLM strategy tagger (zero- and few-shot) with the trained classifier on sentences of "
    "held-out dialogues: accuracy and Cohen's κ against the human labels.",
    "crseval behavior taggers",
    uses_llm=lambda c: True,
)
RUN = JobSpec(
    "behavior.run",
    RunConfig,
    run,
    "runs/behavior",
    "Give every recommender-turn context to a system, collect its responses and report explicit and "
    "implicit BA, turns before the first recommendation, strategy distributions, BLEU and DIST.",
    "crseval behavior alignment",
    can_fail=True,
    check=lambda c: _plugin(c.system) if c.system else None,
    uses_llm=lambda c: (c.responses is None and c.system is None) or c.tagger == "llm",
)
META = JobSpec(
    "behavior.meta",
    MetaConfig,
    meta,
    "runs/behavior-meta",
    "How well do the metrics track quality (exact mixtures of ideal and worst, 0–100 %), and — with "
    "human preferences — how well does each metric's preference agree with humans (κ, 95 % CI)?",
    "crseval behavior meta-evaluation",
)
