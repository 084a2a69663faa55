"""The judge fitting job: learn a calibrated judge from human-labelled dialogues, report every design side
by side under dialogue-grouped nested cross-validation (single LLM question, rules only, rules + LLM,
the length baseline, with paired tests), test it on other sets (cross-dataset transfer), save it as
JSON."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.data.io import dataset_info
from crseval.core.registry import shown_columns
from crseval.data.judged import aspect_key, load_judged, load_predictions
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.judge.calibrated import (
    CalibratedJudge,
    design_name,
    dialogue_groups,
    feature_matrix,
    feature_names,
    fit_aspect,
    item_hash,
    kept,
    nested_cv,
    nested_cv_predictions,
    question_scores,
)
from crseval.judge.fit_config import JudgeFitConfig
from crseval.judge.decomposed import (
    HIDDEN,
    STATES_FIX,
    ask,
    calls,
    require_readings,
    stateless,
)
from crseval.judge.judging import JUDGMENTS, Judge
from crseval.judge.rubric import TURN_QUESTIONS, rubric_for
from crseval.judge.turn_model import FEATURES as TURN_FEATURES
from crseval.judge.turn_model import STATES as TURN_STATES
from crseval.judge.turn_model import (
    cross_fitted,
    embed_turns,
    embedder,
    turn_features,
    turn_labels,
)
from crseval.llm.planning import done_calling
from crseval.runs.context import RunContext
from crseval.stats.correlation import correlation_ci


def _load(
    paths: list[str], level: str, limit: int | None, seed: int, tag: str, by: str = "user"
) -> list[JudgedSet]:
    sets = []
    for k, path in enumerate(paths):
        s = load_judged(path, level)
        items = s.items
        if limit is not None and limit < len(items):
            pick = np.random.default_rng(seed).choice(len(items), size=limit, replace=False)
            items = [items[i] for i in sorted(pick)]
        # ids and groups are prefixed with the set, so items of two sets never share a record or a CV group;
        # held out by system, a set whose ids name none (AB-ReDial's human recommenders) is one system
        groups = s.groups() if by == "user" else s.systems() or {it.id: s.info.name for it in items}
        items = [
            JudgedItem(
                f"{tag}{k}:{it.id}",
                it.dialogue,
                it.labels,
                it.target,
                it.system,
                f"{tag}{k}:{groups[it.id]}",
            )
            for it in items
        ]
        sets.append(JudgedSet(s.info, level, items, s.scales, s.observed_scales))
    if by == "system" and len({it.group for s in sets for it in s.items}) < 2:
        raise CrsevalError(
            "no systems in the item ids to hold out",
            file=", ".join(paths),
            expected="conv ids that start with their system (kbrd_redial_<user>), or several sets",
            fix="use --cv-groups user",
        )
    return sets


def _pooled(sets: list[JudgedSet], aspects: list[str]) -> JudgedSet:
    """One set of every training item; each aspect's labels mapped linearly onto the first set's scale and,
    with several sets, each set's labels shifted to the pooled mean: sets differ in their raters' leniency,
    and a judge fitted on raw pooled labels learns to tell the sets apart instead of good from bad."""
    scales = {a: next(s.scale(a) for s in sets if a in s.aspects) for a in aspects}
    mapped: list[list[JudgedItem]] = []
    for s in sets:
        items = []
        for it in s.items:
            labels = {}
            for a in aspects:
                if a in it.labels:
                    (lo, hi), (tlo, thi) = s.scale(a), scales[a]
                    labels[a] = (
                        it.labels[a]
                        if (lo, hi) == (tlo, thi)
                        else tlo + (it.labels[a] - lo) * (thi - tlo) / (hi - lo)
                    )
            if labels:
                items.append(JudgedItem(it.id, it.dialogue, labels, it.target, it.system, it.group))
        mapped.append(items)
    if len(sets) > 1:
        for a in aspects:
            means = [
                np.mean(v)
                for items in mapped
                if (v := [it.labels[a] for it in items if a in it.labels])
            ]
            grand = float(np.mean(means))
            for items in mapped:
                if values := [it.labels[a] for it in items if a in it.labels]:
                    shift = grand - float(np.mean(values))
                    for it in items:
                        if a in it.labels:
                            it.labels[a] += shift
    return JudgedSet(sets[0].info, sets[0].level, [it for items in mapped for it in items], scales)


def _published(path: Path, sets: list[JudgedSet]) -> dict[str, pd.Series]:
    """aspect → the reference judge's prediction per training item (ids as :func:`_load` prefixes them),
    read before any LLM call so a file that matches nothing fails first."""
    prefixed: dict[str, list[str]] = {}
    for it in (it for s in sets for it in s.items):
        prefixed.setdefault(it.id.split(":", 1)[1], []).append(it.id)
    plain = {it.id.split(":", 1)[1]: it for s in sets for it in s.items}
    judged = JudgedSet(
        sets[0].info,
        sets[0].level,
        [JudgedItem(i, it.dialogue, it.labels, it.target) for i, it in plain.items()],
    )
    return {
        aspect_key(a): pd.Series(
            {k: v for i, v in pred.items() for k in prefixed[i] if pd.notna(v)}, dtype=float
        )
        for a, pred in load_predictions(path, judged).items()
    }


def _questions(config: JudgeFitConfig) -> list[str]:
    if config.turn_model and config.level == "turn":
        raise CrsevalError(
            "--turn-model learns from turns to judge dialogues: dialogue level only", field="level"
        )
    questions = (
        []
        if [q.lower() for q in config.questions] == ["none"]
        else [aspect_key(q) for q in config.questions]
    )
    for q in questions:
        rubric_for(q, config.level == "turn")
        if q in TURN_QUESTIONS and config.level == "turn":
            raise CrsevalError(
                f"{q} is a decomposed (per assistant turn) question: dialogue level only",
                field="questions",
            )
    if config.llm_states and not (config.turn_model and questions):
        raise CrsevalError(
            "--llm-states feeds the turn model the LLM's states from a question's prompt",
            field="llm_states",
            fix="add --turn-model and ask a dialogue-level question (--questions dialogue-overall)",
        )
    if not (config.rules or questions or config.turn_model):
        raise CrsevalError(
            "--no-rules leaves the judge no evidence",
            field="rules",
            fix="ask an LLM question (--questions), add --turn-model, or keep the rules",
        )
    return questions


class _Turns:
    """The pooled items' assistant-turn features and people's turn labels, and the turn model's
    cross-fitted dialogue features per training split (memoised: aspects labelled on the same items share
    their folds, so each split's turn models are fitted once)."""

    def __init__(self, items: list[JudgedItem], encoder: str, states: list | None = None) -> None:
        self.encoder, self.states = encoder, states is not None
        self.position = {it.id: k for k, it in enumerate(items)}
        self.dialogues = [it.dialogue for it in items]
        self.labels = [turn_labels(d) for d in self.dialogues]
        if not any(self.labels):
            raise CrsevalError(
                "no per-turn labels in the training sets",
                field="turn_model",
                expected="assistant turns with turn_level_aggregated labels (CRSArena-Eval's layout)",
            )
        self.rows = turn_features(self.dialogues, embedder(encoder), states)
        self.groups = dialogue_groups(items)
        self._memo: dict = {}

    def split(self, train: np.ndarray, test: np.ndarray | None):
        key = (train.tobytes(), None if test is None else test.tobytes())
        if key not in self._memo:
            self._memo[key] = cross_fitted(
                self.rows,
                self.labels,
                self.dialogues,
                self.groups,
                self.encoder,
                train,
                test,
                states=self.states,
            )
        return self._memo[key]


def _labelled(pooled: JudgedSet, aspect: str) -> tuple[list[JudgedItem], np.ndarray, tuple]:
    """(the items labelled on ``aspect``, their labels, its scale); fewer than 20 is refused."""
    items = [it for it in pooled.items if aspect in it.labels]
    if len(items) < 20:
        raise CrsevalError(
            f"only {len(items)} usable labelled items for {aspect}",
            field="data",
            expected="at least 20 (more for a judge worth trusting)",
        )
    return items, np.array([it.labels[aspect] for it in items]), pooled.scales[aspect]


def _errors(aspect: str, designs: dict, y: np.ndarray, scale) -> list[dict]:
    """Each design's calibration errors (MAE, RMSE) on the aspect's scale."""
    return [
        {
            "aspect": aspect,
            "judge": design,
            "mae": float(np.mean(np.abs(pred - y))),
            "rmse": float(np.sqrt(np.mean((pred - y) ** 2))),
            "scale": f"{scale[0]:g}–{scale[1]:g}",
        }
        for design, pred in designs.items()
    ]


def _evidence(rules: bool, questions: list[str], turns: str | None, states: bool) -> list[str]:
    """What the judge reads, as its design's name lists it."""
    return (
        (["rules"] if rules else [])
        + (["LLM"] if questions else [])
        + (["turn model" + (" with LLM states" if states else "")] if turns else [])
    )


def _fit(
    pooled: JudgedSet, aspects: list[str], questions: list[str], probs: dict, config: JudgeFitConfig
) -> tuple[dict, dict, list, list, object]:
    """Per aspect: out-of-fold predictions of every design (nested grouped CV), the final model, its
    coefficients and its calibration errors; and the turn model (``config.turn_model``, reading the LLM's
    hidden states in ``probs`` with ``config.llm_states``). The outer folds are ``config.folds``, or one
    per system with ``cv_groups = "system"`` (one per group where there are fewer).
    The rules-only and LLM-only designs are always reported beside the judge's own evidence."""
    turns = config.encoder if config.turn_model else None
    rules, states = config.rules, config.llm_states
    by_system = config.cv_groups == "system"
    folds = len({it.group for it in pooled.items}) if by_system else config.folds
    cv_extra, models, coefs, errors = {}, {}, [], []
    evidence = _evidence(rules, questions, turns, states)
    main = f"calibrated ({' + '.join(evidence)})"
    hidden = [probs[it.id][HIDDEN] for it in pooled.items] if states else None
    turn = _Turns(pooled.items, turns, hidden) if turns else None
    whole = turn_model = None
    if turn is not None:
        # the judge's turn model, and each item's turn features from one that never saw its labels
        whole, _, turn_model = turn.split(np.arange(len(pooled.items)), None)
        kept_turns = kept(turn_model.feature_names(), config.compact)
        whole = whole[:, kept_turns]
    for aspect in aspects:
        items, y, scale = _labelled(pooled, aspect)
        R, groups, ids = (
            feature_matrix(items, [], None),
            dialogue_groups(items),
            [it.id for it in items],
        )
        Q = feature_matrix(items, questions, probs, rules=False)
        Q = Q[:, kept(feature_names(questions, None, False), config.compact)]
        X = np.hstack([R, Q]) if rules else Q
        fold_features = None
        if turn is not None:
            pos = np.array([turn.position[i] for i in ids])

            def fold_features(tr, te, pos=pos):
                return [f[:, kept_turns] for f in turn.split(pos[tr], pos[te])[:2]]

        designs = {main: nested_cv_predictions(X, y, groups, folds, fold_features)}
        if evidence != ["rules"]:
            designs["calibrated (rules only)"] = nested_cv_predictions(R, y, groups, folds)
        if questions and evidence != ["LLM"]:
            designs["calibrated (LLM only)"] = nested_cv_predictions(Q, y, groups, folds)
        cv_extra[aspect] = {k: pd.Series(v, index=ids) for k, v in designs.items()}
        cv_extra[aspect] |= {design_name(q): question_scores(items, probs, q) for q in questions}
        errors += _errors(aspect, designs, y, scale)
        if turn is not None:
            X = np.hstack([X, whole[pos]])
        model = fit_aspect(X, y, groups, aspect, scale)
        model.cv = {"n": len(y), **{k: float(np.corrcoef(v, y)[0, 1]) for k, v in designs.items()}}
        models[aspect] = model
        coefs += [
            {"aspect": aspect, "feature": f, "coefficient": c, "alpha": model.alpha}
            for f, c in zip(feature_names(questions, turn_model, rules, config.compact), model.coef)
        ]
    return cv_extra, models, coefs, errors, turn_model


def _cv_tables(
    train: list[JudgedSet],
    pooled: JudgedSet,
    aspects: list[str],
    cv_extra: dict,
    config: JudgeFitConfig,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Agreement within each training set (pooling sets with different means would inflate r), then pooled
    (aspects labelled in more than one set); and, where items carry their system, the system level of the
    out-of-fold predictions."""
    from crseval.judge.meta import meta_eval_table, paired_tests, system_tables

    parts = [
        (
            s_.info.name,
            JudgedSet(
                s_.info,
                config.level,
                [it for it in pooled.items if it.id.startswith(f"train{k}:")],
                pooled.scales,
            ),
        )
        for k, s_ in enumerate(train)
    ] + ([("all (pooled)", pooled)] if len(train) > 1 else [])
    cv, tests, level = [], [], []
    for data_name, part in parts:
        mine = [
            a
            for a in aspects
            if a in part.aspects
            and (part is not pooled or sum(a in s_.aspects for s_ in train) > 1)
        ]
        extra = {a: cv_extra[a] for a in mine}
        cv.append(
            meta_eval_table(
                [], part, mine, n_boot=config.n_boot, seed=config.seed, extra=extra
            ).assign(data=data_name)
        )
        tests.append(
            paired_tests(
                [], part, mine, n_boot=config.n_boot, seed=config.seed, extra=extra
            ).assign(data=data_name)
        )
        _, systems = system_tables(
            [], part, mine, n_boot=config.n_boot, seed=config.seed, extra=extra
        )
        level.append(systems.assign(data=data_name))
    return (
        pd.concat(cv, ignore_index=True),
        pd.concat(tests, ignore_index=True),
        pd.concat(level, ignore_index=True),
    )


def held_out_systems(
    pooled: JudgedSet,
    aspects: list[str],
    cv_extra: dict,
    config: JudgeFitConfig,
    train: list[JudgedSet],
) -> pd.DataFrame:
    """Leave-one-system-out, per held-out CRS and pooled: each design's Pearson r (bootstrap CI over the
    CRS's dialogues) of the predictions a model fitted without that CRS made for it; with several training
    sets, also pooled within each set (its own raters and scale)."""
    groups = {it.id: it.group.split(":", 1)[1] for it in pooled.items}
    names = {
        f"train{k}": f"all of set {k + 1} ({s.info.name}, pooled)" for k, s in enumerate(train)
    }
    rows = []
    for aspect in aspects:
        human = pd.Series({it.id: it.labels[aspect] for it in pooled.items if aspect in it.labels})
        for design, pred in cv_extra[aspect].items():
            both = pd.concat([pred.rename("s"), human.rename("h")], axis=1, join="inner").dropna()
            both["system"] = [groups[i] for i in both.index]
            parts = [*both.groupby("system"), ("all (pooled)", both)] + (
                [*both.groupby([names[i.split(":", 1)[0]] for i in both.index])]
                if len(train) > 1
                else []
            )
            for system, g in parts:
                r, lo, hi, _ = correlation_ci(
                    g["s"], g["h"], "pearson", n_boot=config.n_boot, seed=config.seed
                )
                rows.append(
                    {
                        "aspect": aspect,
                        "judge": design,
                        "system": system,
                        "n": len(g),
                        "pearson": r,
                        "pearson_lo": lo,
                        "pearson_hi": hi,
                    }
                )
    return pd.DataFrame(rows)


def _unseen(train: list[JudgedSet], test: list[JudgedSet], ctx: RunContext) -> list[JudgedSet]:
    """The test sets without the items that are also training items (by content: the same dialogue in
    two files): a transfer is measured on dialogues the judge never saw."""
    known = {item_hash(it) for s in train for it in s.items}
    for s in test:
        fresh = [it for it in s.items if item_hash(it) not in known]
        if not fresh:
            raise CrsevalError(
                f"every item of the test set {s.info.name} is also a training item",
                field="test",
                fix="test on dialogues the judge is not fitted on",
            )
        if len(fresh) < len(s.items):
            ctx.log(
                f"WARNING {len(s.items) - len(fresh)} items of {s.info.name} are also training "
                "items: left out of judge_transfer"
            )
        s.items = fresh
    return test


def _transfer(
    test: list[JudgedSet], judge: CalibratedJudge, probs: dict, config: JudgeFitConfig
) -> pd.DataFrame:
    """The fitted judge (and its questions' raw readings) on sets it never saw."""
    from crseval.judge.meta import meta_eval_table

    parts = []
    for s in test:
        covered = [a for a in judge.aspects if a in s.aspects]
        extra = {
            a: {
                f"calibrated ({judge.name})": pd.Series(
                    judge.predict(s.items, a, probs, s.scale(a)), index=[it.id for it in s.items]
                ),
                **{design_name(q): question_scores(s.items, probs, q) for q in judge.questions},
            }
            for a in covered
        }
        parts.append(
            meta_eval_table(
                [], s, covered, n_boot=config.n_boot, seed=config.seed, extra=extra
            ).assign(test_data=s.info.name)
        )
    return pd.concat(parts, ignore_index=True)


def _aspects(config: JudgeFitConfig, train: list[JudgedSet]) -> list[str]:
    labelled = sorted({a for s in train for a in s.aspects})
    aspects = list(dict.fromkeys(aspect_key(a) for a in (config.aspects or labelled)))
    if unknown := [a for a in aspects if a not in labelled]:
        raise CrsevalError(
            f"no labels for {', '.join(unknown)} in the training sets",
            field="aspects",
            expected="one of " + ", ".join(labelled),
        )
    return aspects


def _signature(
    config: JudgeFitConfig,
    train: list[JudgedSet],
    test: list[JudgedSet],
    client,
    questions,
    aspects,
) -> dict:
    reference = config.reference
    return {
        "data": " + ".join(s.info.signature() for s in train)
        + "".join(f" | test {s.info.signature()}" for s in test)
        + (f" | reference {dataset_info('reference', reference).signature()}" if reference else ""),
        "llm": client.identity() if client else None,
        "metric": {
            "judge-fit": nested_cv(
                "leave-one-system-out" if config.cv_groups == "system" else f"{config.folds}-fold"
            )
            + "|features:"
            + ("rules-v1" if config.rules else "no-rules")
            + ("|compact" if config.compact else ""),
            "turn_model": TURN_FEATURES + (TURN_STATES if config.llm_states else "")
            if config.turn_model
            else None,
            "questions": questions,
            "aspects": aspects,
        },
    }


def _readings(
    config: JudgeFitConfig, client, questions, items: list, ctx: RunContext
) -> dict[str, dict]:
    """item → question → the LLM's reading (none without questions)."""
    probs: dict[str, dict] = {}
    if client is not None:
        triples = [(it.id, it.dialogue, it.target) for it in items]
        try:
            asked, probs = ask(
                triples,
                questions,
                Judge("llm", client),
                ctx.stream(JUDGMENTS),
                seed=config.seed,
                progress=ctx.progress("LLM judge ratings", calls(triples, questions)),
                hidden=config.llm_states,
            )
        finally:
            client.close()
    done_calling()
    if client is not None:
        require_readings([it.id for it in items], questions, probs, asked)
    return probs


def _client(config: JudgeFitConfig, questions: list[str], ctx: RunContext):
    """The LLM that answers the questions (none without questions); one that gives no hidden states is
    refused before any call when the turn model reads them."""
    client = ctx.llm(config.llm, "judge") if questions else None
    if config.llm_states and stateless(client):
        client.close()
        raise CrsevalError(
            f"--llm-states needs an LLM that gives its hidden states; {stateless(client)} does not",
            field="llm_states",
            fix=STATES_FIX,
        )
    return client


def _fit_pooled(config: JudgeFitConfig, pooled, aspects, questions, probs, published):
    """:func:`_fit` on the pooled training sets as the config asks, with the reference's predictions
    beside the designs."""
    fitted = _fit(pooled, aspects, questions, probs, config)
    cv_extra = fitted[0]
    for aspect, series in published.items():
        if aspect in cv_extra:
            cv_extra[aspect][f"published: {config.reference.stem}"] = series
    return fitted


def _section(out: Output, config: JudgeFitConfig, name: str, train, test, questions, left_out: int):
    out.section(
        "Calibrated judge",
        f"Fitted '{name}' on {', '.join(s.info.name for s in train)} ({config.level} level; LLM questions: "
        f"{', '.join(questions) or 'none (rules only)'}; {left_out} items left out because an "
        "LLM rating failed). judge_fit_cv: every design's out-of-fold agreement with people under grouped "
        f"nested cross-validation (outer {config.folds} folds, or one per system held out with --cv-groups system: "
        "judge_fit_held_out per CRS; the ridge penalty is chosen inside each training fold), with the "
        "length baseline and partial correlations holding length constant; the paired tests say whether a design "
        "beats another on the same items. The saved judge (judge.json) is refitted on all items; "
        + (
            "judge_transfer tests it on sets it never saw."
            if test
            else "use it with `judge meta-eval --judge`."
        ),
        tables=list(out.tables),
    )


def run(config: JudgeFitConfig, ctx: RunContext) -> Output:
    from crseval.judge.meta import item_scores  # plotting and reliability: loaded only here

    questions = _questions(config)
    train = _load(config.data, config.level, config.limit, config.seed, "train", config.cv_groups)
    test = _unseen(
        train, _load(config.test or [], config.level, config.limit, config.seed, "test"), ctx
    )
    aspects = _aspects(config, train)
    name = config.name or "+".join(s.info.name for s in train)
    published = _published(config.reference, train) if config.reference else {}
    client = _client(config, questions, ctx)
    out = Output(
        f"calibrated judge '{name}': nested-CV agreement with people",
        signature=_signature(config, train, test, client, questions, aspects),
    )
    llm = client.identity() if client else None
    everything = [it for s in train + test for it in s.items]
    probs = _readings(config, client, questions, everything, ctx)
    usable = {it.id for it in everything if all(q in probs.get(it.id, {}) for q in questions)}
    pooled = _pooled(train, aspects)
    pooled.items = [it for it in pooled.items if it.id in usable]
    if config.turn_model:  # its one long step besides the LLM, with a bar of its own
        embed_turns([it.dialogue for it in everything], config.encoder, ctx.progress)
    cv_extra, models, coefs, errors, turn_model = _fit_pooled(
        config, pooled, aspects, questions, probs, published
    )
    cv, tests, level = _cv_tables(train, pooled, aspects, cv_extra, config)
    judge = CalibratedJudge(
        name,
        config.level,
        questions,
        llm,
        feature_names(questions, turn_model, config.rules, config.compact),
        models,
        [{"data": s.info.signature(), "n": len(s.items)} for s in train],
        turn_model,
        config.rules,
        sorted({item_hash(it) for it in pooled.items}),
        config.compact,
    )
    judge.save(ctx.artifact("judge.json"))
    out.tables = {
        "judge_fit_cv": cv,
        "judge_fit_paired_tests": tests,
        "judge_fit_errors": pd.DataFrame(errors),
        "judge_coefficients": pd.DataFrame(coefs),
        "judge_fit_item_scores": item_scores([], pooled.items, cv_extra),
        **({"judge_fit_system_level": level} if len(level) else {}),
    }
    if config.cv_groups == "system":
        out.table("judge_fit_held_out", held_out_systems(pooled, aspects, cv_extra, config, train))
    for s in test:
        s.items = [it for it in s.items if it.id in usable]
    if test:
        out.table("judge_transfer", _transfer(test, judge, probs, config))
    _section(out, config, name, train, test, questions, len(everything) - len(usable))
    people = cv[cv["judge"] != "length baseline"]
    out.summary = people[shown_columns("judge_fit_cv", people.columns)].round(3)
    return out


JOB = JobSpec(
    "judge.fit",
    JudgeFitConfig,
    run,
    "runs/judge-fit",
    "Fit a calibrated judge (ridge on transcript features and LLM digit probabilities) on human labels, with "
    "every design compared under dialogue-grouped nested CV; saves RUN/judge.json.",
    "crseval calibrated judge",
    uses_llm=lambda c: [q.lower() for q in c.questions] != ["none"],
)
