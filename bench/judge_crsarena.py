"""Which ingredients make a dialogue judge agree with people on CRS-generated dialogues? An ablation on
CRSArena-Eval's 362 development dialogues (`../shared/data/judgments/crsarena_eval/`), every design a
standardised ridge regression scored by 5-fold cross-validation **grouped by user** (an arena battle is
one user talking to two systems: both dialogues stay on one side), out-of-fold Pearson r with the
dialogue aspect and a 95 % bootstrap CI:

* ``length`` — log characters of the transcript (the baseline every judge must beat);
* ``rules`` — the calibrated judge's rule-read transcript evidence (`judge/features.py`);
* ``assistant text`` — rules + the mean MiniLM embedding of the assistant's turns;
* ``turn model`` — rules + `judge fit --turn-model`'s turn model (`crseval/judge/turn_model.py`, MiniLM
  here): a ridge on the people's per-turn relevance and interestingness labels, its predictions
  aggregated per dialogue (mean, minimum, last). Inside each outer fold it is fitted on the training
  dialogues' turns only, and the training dialogues' own turn features come from an inner grouped CV
  (`cross_fitted`), so no dialogue's features saw its labels;
* with ``--llm RUN`` also the LLM readings of a ``judge meta-eval`` run on the same file (its single
  questions, per aspect, as published by ``judge_item_scores.csv``; only on the dialogues it judged),
  and two fitted designs with its ``dialogue-overall`` reading as a feature: ``LLM + turn model`` (the
  shipped default's evidence) and ``rules + LLM + turn model`` (the run must cover all 362);
* with ``--llm-states CACHE.npz`` also ``turn model + LLM states``: the same turn model whose turn features
  also hold the embedded LLM's (Qwen2.5-Coder-1.5B) last-layer hidden states — averaged over the reply's
  tokens, and at its last token — from one forward pass over the transcript, so a reply is read *in its
  context* (a cross-encoding the sentence encoders cannot give); ~5 s per dialogue on 2 cores, kept in
  CACHE (keyed by each dialogue's content hash) so a re-run is served from it. It also prints the turn
  model's out-of-fold turn-level relevance r with and without them;
* ``published`` — FACE's predictions for the same dialogues (no fitting: the named peer).

``--by system`` groups the folds by system instead (leave systems out): the transfer question, since
assistant-text features can learn a system's style. Seconds per dialogue are the feature extraction's.

usage: python bench/judge_crsarena.py [--data DIR] [--by user|system] [--llm RUN] [--llm-states CACHE.npz]
       [--n-boot 1000]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import _record as record
import numpy as np
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from crseval.data.judged import load_judged, load_predictions
from crseval.judge.calibrated import dialogue_groups, item_hash
from crseval.judge.features import transcript_features
from crseval.judge.turn_model import (
    _fit_linear,
    _turns,
    cross_fitted,
    turn_features,
    turn_labels,
)
from crseval.runs.formats import markdown_table
from crseval.stats.correlation import correlation_ci
from crseval.text.embed import MiniLM

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "judgments" / "crsarena_eval"
ASPECTS = [
    "dialogue-overall",
    "understanding",
    "task-completion",
    "interest-arousal",
    "efficiency",
    "preference-elicitation",
    "explanation",
]


def ridge():
    return make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-2, 4, 25)))


def assistant_text(items, embed) -> np.ndarray:
    """Per dialogue: the mean embedding of the assistant's turns."""
    texts = [
        [u.text for u in it.dialogue.utterances if u.role.is_recommender] or ["-"] for it in items
    ]
    vectors = iter(embed.encode([t for ts in texts for t in ts]))
    return np.array([np.mean([next(vectors) for _ in ts], axis=0) for ts in texts])


def llm_states(items, cache: Path) -> tuple[list[np.ndarray], float]:
    """Per dialogue, one row per assistant turn (in ``_turns`` order): the embedded LLM's last-layer hidden
    states over the transcript ("User: …" / "Assistant: …" lines), mean over the reply's tokens beside the
    reply's last token. Cached in ``cache`` by item content hash. Also the seconds per dialogue extracted
    (NaN where all came from the cache)."""
    import llama_cpp

    from crseval.llm.models import resolve_model

    done = dict(np.load(cache)) if cache.exists() else {}  # item hash → its rows (no pickle)
    todo, rate = [it for it in items if item_hash(it) not in done], np.nan
    if todo:
        llm = llama_cpp.Llama(
            model_path=str(resolve_model(None)[0]),
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE,
            n_ctx=2048,
            n_batch=2048,
            n_ubatch=2048,
            n_threads=os.cpu_count() or 2,
            verbose=False,
        )
        t0 = time.perf_counter()
        for k, it in enumerate(todo):
            text, spans = "", []
            for u in it.dialogue.utterances:
                before = text + ("Assistant: " if u.role.is_recommender else "User: ")
                text = before + (u.text.strip() or "-") + "\n"
                if u.role.is_recommender:
                    spans.append(
                        (len(llm.tokenize(before.encode())), len(llm.tokenize(text[:-1].encode())))
                    )
            E = np.asarray(llm.embed(text, truncate=True), dtype=np.float32)
            rows = []
            for a, b in spans:
                a, b = min(a, len(E) - 1), min(max(b, a + 1), len(E))
                rows.append(np.concatenate([E[a:b].mean(0), E[b - 1]]))
            done[item_hash(it)] = np.array(rows) if rows else np.zeros((0, 2 * llm.n_embd()))
            if k % 20 == 19 or k == len(todo) - 1:
                # saved as it goes: an interrupted run keeps its work
                np.savez(cache, **done)
                rate = (time.perf_counter() - t0) / (k + 1)
                print(f"LLM states {k + 1}/{len(todo)}, {rate:.1f} s each", flush=True)
    return [done[item_hash(it)] for it in items], rate


def turn_r(rows, dialogues, groups) -> float:
    """Out-of-fold (grouped) Pearson r of a turn ridge on ``rows`` with the people's turn relevance."""
    X, y, g = [], [], []
    for R, d, grp in zip(rows, dialogues, groups):
        lab = turn_labels(d)
        for j, (i, _, _) in enumerate(_turns(d)):
            if "relevance" in lab.get(i, {}):
                X.append(R[j]), y.append(lab[i]["relevance"]), g.append(grp)
    X, y, pred = np.array(X), np.array(y), np.zeros(len(y))
    for train, test in GroupKFold(5).split(X, groups=np.array(g)):
        pred[test] = _fit_linear(X[train], y[train]).predict(X[test])
    return float(np.corrcoef(pred, y)[0, 1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DEFAULT))
    ap.add_argument("--by", choices=["user", "system"], default="user")
    ap.add_argument(
        "--llm", default=None, help="a `judge meta-eval` run on the same file (its LLM readings)"
    )
    ap.add_argument(
        "--llm-states",
        default=None,
        help="also the LLM's hidden states as turn features (cache .npz)",
    )
    ap.add_argument("--n-boot", type=int, default=1000)
    a = ap.parse_args()
    data = Path(a.data)
    if not (data / "crs_arena_eval_train.json").exists():
        raise SystemExit(f"CRSArena-Eval not found under {data} (see ../shared/data/README.md)")
    dial = load_judged(data / "crs_arena_eval_train.json")
    items, n = dial.items, len(dial.items)
    labels = dial.groups() if a.by == "user" else dial.systems()
    groups = np.array([labels[it.id] for it in items])
    systems = np.array([dial.systems()[it.id] for it in items])
    published = load_predictions(data / "face_run_train.json", dial)

    t0 = time.perf_counter()
    rules = np.array([transcript_features(it.dialogue) for it in items])
    seconds = {"length": 0.0, "rules": (time.perf_counter() - t0) / n}
    embed = MiniLM(persist=False)  # nothing memoised from earlier runs: the seconds are real
    t0 = time.perf_counter()
    assistant = assistant_text(items, embed)
    seconds["assistant text"] = seconds["rules"] + (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    dialogues = [it.dialogue for it in items]
    rows = turn_features(dialogues, embed)
    labels = [turn_labels(d) for d in dialogues]
    seconds["turn model"] = seconds["rules"] + (time.perf_counter() - t0) / n

    folds = list(GroupKFold(5, shuffle=True, random_state=0).split(rules, groups=groups))

    def aggregates(rows):
        out = {}
        for k, (train, test) in enumerate(folds):
            inside, outside, _ = cross_fitted(
                rows, labels, dialogues, groups, "minilm", train, test
            )
            out[k] = np.zeros((n, inside.shape[1]))
            out[k][train], out[k][test] = inside, outside
        return out

    turn_agg = aggregates(rows)
    designs = {
        "length": lambda k: rules[:, :1],
        "rules": lambda k: rules,
        "assistant text": lambda k: np.hstack([rules, assistant]),
        "turn model": lambda k: np.hstack([rules, turn_agg[k]]),
    }
    if a.llm:
        llm = _llm_reading(a.llm, items)
        designs["LLM + turn model"] = lambda k: np.hstack([llm, turn_agg[k]])
        designs["rules + LLM + turn model"] = lambda k: np.hstack([rules, llm, turn_agg[k]])
        seconds["LLM + turn model"] = seconds["rules + LLM + turn model"] = np.nan
    if a.llm_states:
        states, rate = llm_states(items, Path(a.llm_states))
        seconds["turn model + LLM states"] = seconds["turn model"] + rate  # NaN: from the cache
        both = [np.hstack([r, s]) for r, s in zip(rows, states)]
        users = dialogue_groups(items)
        print(
            f"turn relevance r, out of fold by user: MiniLM {turn_r(rows, dialogues, users):.3f}, "
            f"+ LLM states {turn_r(both, dialogues, users):.3f}"
        )
        state_agg = aggregates(both)
        designs["turn model + LLM states"] = lambda k: np.hstack([rules, state_agg[k]])
        if a.llm:
            designs["LLM + turn model + LLM states"] = lambda k: np.hstack([llm, state_agg[k]])
            seconds["LLM + turn model + LLM states"] = np.nan
    table_rows = []
    for aspect in ASPECTS:
        y = np.array([it.labels[aspect] for it in items])
        for name, X in designs.items():
            pred = np.zeros(n)
            for k, (train, test) in enumerate(folds):
                pred[test] = ridge().fit(X(k)[train], y[train]).predict(X(k)[test])
            table_rows.append(_row(aspect, name, pred, y, a.n_boot, seconds[name], systems))
        if aspect in published:
            table_rows.append(
                _row(
                    aspect,
                    "published (FACE)",
                    published[aspect].to_numpy(),
                    y,
                    a.n_boot,
                    np.nan,
                    systems,
                )
            )
        table_rows += _llm_rows(a.llm, aspect, items, y, a.n_boot, systems)
    table = pd.DataFrame(table_rows)
    record.data(data / "crs_arena_eval_train.json", data / "face_run_train.json")
    record.table(
        f"CRSArena-Eval, {n} dialogues, 5-fold CV grouped by {a.by} ({len(set(groups))} groups): "
        "out-of-fold Pearson r with 95 % CI; named peer: FACE's published predictions",
        table.round(3).to_dict("records"),
    )
    print(f"CRSArena-Eval, {n} dialogues, 5-fold CV grouped by {a.by} ({len(set(groups))} groups)")
    print(markdown_table(table))
    return 0


def _row(aspect, name, pred, y, n_boot, seconds, systems) -> dict:
    """Out-of-fold Pearson r with its CI, and the mean of the per-system r (how well a design orders the
    dialogues of one system: what is left when the differences between systems are taken away)."""
    ok = np.isfinite(pred)
    r, lo, hi, _ = correlation_ci(pred[ok], y[ok], "pearson", n_boot=n_boot)
    within = [
        correlation_ci(pred[ok & (systems == s)], y[ok & (systems == s)], "pearson", n_boot=0)[0]
        for s in np.unique(systems)
    ]
    return {
        "aspect": aspect,
        "design": name,
        "n": int(ok.sum()),
        "pearson": r,
        "ci_lo": lo,
        "ci_hi": hi,
        "within systems": np.nanmean(within),
        "s/dialogue": seconds,
    }


def _run_scores(run, aspect) -> pd.DataFrame:
    """A `judge meta-eval` run's per-item scores for ``aspect``, its own judges only (no reference, no
    length baseline)."""
    scores = pd.read_csv(Path(run) / "tables" / "judge_item_scores.csv")
    return scores[
        (scores["aspect"] == aspect) & ~scores["judge"].str.startswith(("published", "length"))
    ]


def _llm_reading(run, items) -> np.ndarray:
    """The run's expected digit for the dialogue-overall question, one column; every item must have one."""
    scores = _run_scores(run, "dialogue-overall")
    by = scores[~scores["judge"].str.startswith("calibrated")].groupby("item")["score"].first()
    if missing := [it.id for it in items if it.id not in by.index]:
        raise SystemExit(f"--llm run has no dialogue-overall reading for {len(missing)} dialogues")
    return by.loc[[it.id for it in items]].to_numpy()[:, None]


def _llm_rows(run, aspect, items, y, n_boot, systems) -> list[dict]:
    """The LLM readings a `judge meta-eval` run recorded for this aspect (no fitting), on its dialogues."""
    if not run:
        return []
    out = []
    for judge, g in _run_scores(run, aspect).groupby("judge"):
        by = g.set_index("item")["score"]
        pred = np.array([by.get(it.id, np.nan) for it in items], dtype=float)
        out.append(_row(aspect, f"LLM run: {judge}", pred, y, n_boot, np.nan, systems))
    return out


if __name__ == "__main__":
    raise SystemExit(record.run(main))
