"""Calibrated judges: a small regularised model from judge evidence to a human aspect.

Evidence per dialogue = the rule-read transcript features of :mod:`crseval.judge.features` (unless the
judge is fitted without them: ``judge fit --no-rules``) plus, for
each whole-dialogue LLM question, the judge's digit-probability vector (p1…p5) and its expected value,
and for each decomposed turn question (:mod:`crseval.judge.decomposed`) the mean, minimum and last
turn's P(yes), and, for a judge with a turn model (:mod:`crseval.judge.turn_model`, learned from
people's per-turn labels, optionally from the LLM's hidden states over each reply and the user's next
message as well), its predicted turn labels aggregated the same way; a compact judge (``judge fit
--compact``) reads each of these by its mean alone (:func:`kept`). The model is a
standardised ridge regression; its penalty is chosen by grouped inner cross-validation, and its
accuracy is estimated by grouped *outer* cross-validation (nested: the outer test folds never choose
the penalty), with groups = dialogues, so turns of one dialogue never sit on both sides.

A judge is saved as plain JSON (no pickle): feature names, standardisation, coefficients, penalty,
human scale, the LLM it read, the questions it asked, its cross-validated accuracy, the signature of
the data sets it was fitted on and a content hash of each training item, so that `judge meta-eval`
counts the items of any file — merged, renamed or subset — that the judge has already seen.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupKFold

from crseval.core.errors import CrsevalError
from crseval.core.signature import content_hash, stable_json
from crseval.core.version import __version__
from crseval.data.judged import aspect_key
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.core.types import Dialogue
from crseval.judge.decomposed import AGGREGATES, HIDDEN, STATES_FIX, aggregate, ask, stateless
from crseval.judge.judging import Judge
from crseval.judge.features import NAMES, transcript_features
from crseval.judge.rubric import TURN_QUESTIONS
from crseval.judge.turn_model import TurnModel
from crseval.llm.planning import active as planning
from crseval.runs.stream import Stream
from crseval.stats.ridge import GroupedRidgeSearch

ALPHAS = tuple(float(a) for a in np.logspace(-1, 4, 16))
DIGITS = ("1", "2", "3", "4", "5")
FORMAT = "crseval-calibrated-judge/1"
SHIPPED = {  # judges inside the package, by the name `--judge` takes
    # the LLM's dialogue-overall question + a turn model that also reads the LLM's hidden states of each
    # reply and of the user's next message (from the question's own prefill), fitted on CRSArena-Eval's
    # 362 development dialogues without the rule features (they help under user-grouped CV, hurt with
    # systems held out), compact: the question's expected score and the turn model's mean turn
    "default": Path(__file__).with_name("default_judge.json"),
    # rules + the LLM's dialogue-overall question, fitted on AB-ReDial + USS-ReDial (human-human ReDial;
    # the default until 2026-11-26)
    "redial": Path(__file__).with_name("redial_judge.json"),
    # rules + a turn model fitted on CRSArena-Eval's 362 development dialogues (dialogue and turn labels;
    # no LLM): a judge of the nine CRS Arena systems' dialogues — it does not transfer to other systems
    "crsarena": Path(__file__).with_name("crsarena_judge.json"),
}

Probs = Mapping[
    str, Mapping[str, "Mapping[str, float] | list[float] | np.ndarray"]
]  # item → question → digit probs | P(yes)/turn; HIDDEN → hidden states per utterance


def feature_names(
    questions: Sequence[str],
    turn_model: TurnModel | None = None,
    rules: bool = True,
    compact: bool = False,
) -> list[str]:
    names = list(NAMES) if rules else []
    for q in questions:
        parts = AGGREGATES if q in TURN_QUESTIONS else (*(f"p{d}" for d in DIGITS), "mean")
        names += [f"{q}:{x}" for x in parts]
    names += turn_model.feature_names() if turn_model else []
    return [names[i] for i in kept(names, compact)]


def kept(names: Sequence[str], compact: bool) -> list[int]:
    """The columns of the evidence ``names`` a judge reads: all of them, or (``compact``) the rule
    features and each LLM question's and turn aggregate's mean alone — its expected score, not its five
    digit probabilities; the mean turn, not the worst and last — fewer weights to fit, which carry over
    better to a CRS the judge has never met (#94)."""
    return [i for i, n in enumerate(names) if not compact or n in NAMES or n.endswith(":mean")]


def feature_matrix(
    items: Sequence[JudgedItem],
    questions: Sequence[str],
    probs: Probs | None = None,
    rules: bool = True,
) -> np.ndarray:
    """Rows = items, columns = :func:`feature_names` (without a turn model's). An item without
    probabilities for a question it needs is an error (the LLM rating failed or was not made): the judge
    never imputes evidence."""
    rows = []
    for it in items:
        row = list(transcript_features(it.dialogue)) if rules else []
        for q in questions:
            p = (probs or {}).get(it.id, {}).get(q)
            if not p:
                raise CrsevalError(
                    f"no LLM probabilities for item {it.id!r}, question {q!r}",
                    fix="the rating failed or was not made; rerun to retry failed ratings",
                )
            if q in TURN_QUESTIONS:
                row += aggregate(p)
                continue
            vec = [float(p.get(d, 0.0)) for d in DIGITS]
            row += vec + [float(np.dot(vec, np.arange(1, 6)) / max(sum(vec), 1e-12))]
        rows.append(row)
    return np.asarray(rows, dtype=float).reshape(
        len(items), len(feature_names(questions, None, rules))
    )


def question_scores(items: Sequence[JudgedItem], probs: dict, q: str) -> pd.Series:
    """One question's raw reading: the expected digit, or a turn question's mean P(yes) over turns."""
    return pd.Series(
        {
            it.id: float(np.mean(p))
            if q in TURN_QUESTIONS
            else sum(int(d) * p.get(d, 0.0) for d in DIGITS)
            for it in items
            if (p := probs.get(it.id, {}).get(q))
        },
        dtype=float,
    )


def item_hash(item: JudgedItem) -> str:
    """What a judged item shows the judge — who said what, in order, and the judged turn — hashed; ids
    and file names are not part of it, so the same dialogue in another file or under an opaque id
    hashes the same."""
    said = [[u.role.is_recommender, " ".join(u.text.split())] for u in item.dialogue.utterances]
    return content_hash(stable_json([said, item.target]).encode(), 16)


def design_name(q: str) -> str:
    return f"decomposed: {q} (mean P(yes))" if q in TURN_QUESTIONS else f"LLM: {q} question"


class Mismatch(NamedTuple):
    kind: str  # 'model', 'stateless' (the LLM gives no hidden states) or 'engine' (another engine's states)
    why: str
    fix: str


@dataclass
class AspectModel:
    aspect: str
    human_scale: tuple[float, float]
    mean: list[float]
    std: list[float]
    coef: list[float]
    intercept: float
    alpha: float
    cv: dict = field(default_factory=dict)  # nested-CV predictions' agreement on the training data

    def predict(self, X: np.ndarray) -> np.ndarray:
        z = (X - np.asarray(self.mean)) / np.asarray(self.std)
        return z @ np.asarray(self.coef) + self.intercept


@dataclass
class CalibratedJudge:
    name: str
    level: str
    questions: list[str]
    llm: dict | None
    features: list[str]
    models: dict[str, AspectModel]
    trained_on: list[dict]
    turn_model: TurnModel | None = None  # per-turn model whose aggregates are the last features
    # the rule-read transcript features come first; a judge fitted with --no-rules has none
    rules: bool = True
    # content hashes of the items it was fitted on (:func:`item_hash`); empty in a judge fitted before
    # they were recorded, which is matched by its data sets' signatures instead
    trained_items: list[str] = field(default_factory=list)
    # reads each question's and turn aggregate's mean only (:func:`kept`); False in judges fitted
    # before it existed
    compact: bool = False
    version: str = __version__
    format: str = FORMAT

    @property
    def aspects(self) -> list[str]:
        return list(self.models)

    @property
    def reads_states(self) -> bool:
        """Its turn model reads the LLM's hidden states (asked with its first question)."""
        return self.turn_model is not None and self.turn_model.states

    @property
    def states_engine(self) -> str | None:
        """The llama.cpp engine whose hidden states it learned (judges fitted before the engine was recorded
        read the compiled one's)."""
        llm = self.llm or {}
        if not self.reads_states:
            return None
        return llm.get("engine", "llama-cpp-python" if llm.get("backend") == "llamacpp" else None)

    def mismatch(self, client: Any) -> Mismatch | None:
        """Why this judge cannot read what ``client``'s LLM answers, or None where it can: another model,
        an LLM that gives no hidden states, or another engine's states (numerically different: a judge is
        only valid on the states it was fitted on)."""
        ident, theirs = client.identity(), (self.llm or {}).get("model")
        refit = "fit a judge on it (`crseval judge fit`), or pass --judge none"
        if self.reads_states and (missing := stateless(client)):
            why = (
                f"the calibrated judge reads the LLM's hidden states, which {missing} does not give"
            )
            return Mismatch("stateless", why, STATES_FIX + ", or pass --judge none")
        if self.questions and theirs and ident.get("model") != theirs:
            why = f"the calibrated judge read {theirs!r}, not {ident.get('model')!r}"
            return Mismatch("model", why, f"judge with {theirs!r}, " + refit)
        if not self.reads_states:
            return None
        if (engine := ident.get("engine")) != self.states_engine:
            why = (
                f"the calibrated judge learned {self.states_engine}'s hidden states, not {engine}'s"
            )
            return Mismatch("engine", why, f"use engine = '{self.states_engine}', or " + refit)
        return None

    def unseen(self, judged: JudgedSet, items: Sequence[JudgedItem]) -> list[JudgedItem]:
        """The ``items`` (drawn from ``judged``) this judge was not fitted on."""
        if not self.trained_items:  # an older judge: all or nothing, by data set
            fitted_on = {t["data"] for t in self.trained_on}
            return [] if judged.info.signature() in fitted_on else list(items)
        known = set(self.trained_items)
        return [it for it in items if item_hash(it) not in known]

    def predict(
        self,
        items: Sequence[JudgedItem],
        aspect: str,
        probs: Probs | None = None,
        scale: tuple[float, float] | None = None,
    ) -> np.ndarray:
        """Predicted human score per item; mapped linearly onto ``scale`` when the target data's human
        scale differs from the one the judge learned (correlations are unchanged by the mapping)."""
        model = self.models[aspect_key(aspect)]
        X = feature_matrix(items, self.questions, probs, self.rules)
        if self.turn_model is not None:
            states = [_states(probs, it.id) for it in items] if self.reads_states else None
            turns = self.turn_model.dialogue_features([it.dialogue for it in items], states)
            X = np.hstack([X, turns])
        full = feature_names(self.questions, self.turn_model, self.rules)
        pred = model.predict(X[:, kept(full, self.compact)])
        lo, hi = model.human_scale
        pred = np.clip(pred, lo, hi)
        if scale is not None and tuple(scale) != (lo, hi) and hi > lo:
            pred = scale[0] + (pred - lo) * (scale[1] - scale[0]) / (hi - lo)
        return pred

    def rate(
        self,
        key: str,
        dialogue: Dialogue,
        judge: Judge,
        records: Stream,
        *,
        seed: int = 0,
    ) -> dict[str, float]:
        """This judge's aspects for one unlabelled dialogue, as '<aspect> (calibrated)' (the preference-shift
        job's sessions); its questions are asked with ``judge`` (cached, resumable). {} when a rating failed."""
        if bad := self.mismatch(judge.client):
            raise CrsevalError(bad.why, field="judge.calibrated", fix=bad.fix)
        _, probs = ask(
            [(key, dialogue, None)],
            self.questions,
            judge,
            records,
            seed=seed,
            hidden=self.reads_states,
        )
        if any(q not in probs.get(key, {}) for q in self.questions) or planning() is not None:
            return {}  # a failed rating, or a plan: it records the calls, stand-in answers predict nothing
        item = JudgedItem(key, dialogue, {})
        return {f"{a} (calibrated)": float(self.predict([item], a, probs)[0]) for a in self.aspects}

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(asdict(self), indent=1, ensure_ascii=False) + "\n")
        return p

    @classmethod
    def load(cls, path: str | Path) -> "CalibratedJudge":
        """A judge from a `judge fit` folder, its judge.json, or a shipped judge's name (:data:`SHIPPED`)."""
        p = SHIPPED.get(str(path)) or Path(path)
        if p.is_dir():
            p = p / "judge.json"
        if not p.exists():
            raise CrsevalError(
                "calibrated judge not found",
                file=p,
                fix="fit one with `crseval judge fit DATA --out DIR` and pass DIR or DIR/judge.json",
            )
        try:
            raw = json.loads(p.read_text())
            if raw.get("format") != FORMAT:
                raise ValueError(f"format {raw.get('format')!r}")
            raw["models"] = {
                k: AspectModel(**{**m, "human_scale": tuple(m["human_scale"])})
                for k, m in raw["models"].items()
            }
            if raw.get("turn_model"):
                raw["turn_model"] = TurnModel.from_dict(raw["turn_model"])
            judge = cls(**raw)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise CrsevalError(f"not a calibrated judge ({e})", file=p, expected=FORMAT) from None
        if judge.features != feature_names(
            judge.questions, judge.turn_model, judge.rules, judge.compact
        ):
            raise CrsevalError(
                "the judge was fitted with other features than this version computes",
                file=p,
                fix="refit it with `crseval judge fit`",
            )
        return judge


def _states(probs: Probs | None, item: str) -> np.ndarray:
    if (states := (probs or {}).get(item, {}).get(HIDDEN)) is None:
        raise CrsevalError(
            f"no LLM hidden states for item {item!r}",
            fix="ask the judge's questions with hidden states (crseval.judge.decomposed.ask(hidden=True))",
        )
    return states


OUTER_FOLDS = (
    5  # the grouped folds whose rows are predicted out of fold, unless a caller asks for others
)
INNER_FOLDS = 5  # the grouped folds that choose the ridge penalty inside each training fold


def _search(groups: np.ndarray) -> GroupedRidgeSearch:
    return GroupedRidgeSearch(ALPHAS, folds=min(INNER_FOLDS, len(np.unique(groups))))


def nested_cv(outer: str = f"{OUTER_FOLDS}-fold") -> str:
    """The signature of a ridge fitted by :func:`nested_cv_predictions` with ``outer`` folds ("5-fold",
    "leave-one-system-out")."""
    return f"ridge(standardised)|nested-grouped-cv({outer},inner {INNER_FOLDS}-fold)"


def nested_cv_predictions(
    X: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int = OUTER_FOLDS, fold_features=None
) -> np.ndarray:
    """Out-of-fold predictions: the outer fold's rows are predicted by a model whose penalty was chosen by
    grouped CV on the other rows only. ``fold_features(train, test)`` → (train columns, test columns) adds
    features that must themselves be learned inside the fold (a turn model's aggregates)."""
    pred = np.empty(len(y))
    for train, test in GroupKFold(min(folds, len(np.unique(groups)))).split(X, y, groups):
        Xtr, Xte = X[train], X[test]
        if fold_features is not None:
            a, b = fold_features(train, test)
            Xtr, Xte = np.hstack([Xtr, a]), np.hstack([Xte, b])
        pred[test] = _search(groups[train]).fit(Xtr, y[train], groups=groups[train]).predict(Xte)
    return pred


def fit_aspect(
    X: np.ndarray, y: np.ndarray, groups: np.ndarray, aspect: str, human_scale: tuple[float, float]
) -> AspectModel:
    best = _search(groups).fit(X, y, groups=groups).best_estimator_
    scaler, ridge = best.named_steps["standardscaler"], best.named_steps["ridge"]
    return AspectModel(
        aspect,
        tuple(human_scale),
        scaler.mean_.tolist(),
        scaler.scale_.tolist(),
        ridge.coef_.tolist(),
        float(ridge.intercept_),
        float(ridge.alpha),
    )


def dialogue_groups(items: Sequence[JudgedItem], prefix: str = "") -> np.ndarray:
    """Cross-validation groups: an item's own group (its user, see ``JudgedSet.groups``) where set, else its
    dialogue (turn items ``conv#t3`` / ``conv#u5`` group by their dialogue)."""
    return np.array([prefix + (it.group or it.id.split("#")[0]) for it in items])
