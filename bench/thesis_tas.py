"""The preference-shift study's TAS (`crseval shift score LOGS --definition thesis --lda DIR`): speed on the
study's shared logs, and which definition measures adaptation (crseval's or the study's).

Two parts:

* ``speed`` — the command a user runs, on the 3,000 shared sessions (target ≤ 30 s wall on 2 cores,
  < 1 GB peak), against a named peer measured in the same run: the study's algorithm as its code runs
  it (NLTK's ``word_tokenize`` per text, gensim's ``get_document_topics`` per call with the model's
  running random state, only non-empty topics cached, TF-IDF per text pair), on the first ``--peer``
  sessions of one model and extrapolated.
* ``validity`` — known groups (``examples/known_groups.toml``): the user simulator drives two CRSs through
  the same sessions, the template CRS (retrieves by the user's current wishes) and one that ignores the
  user (``examples/ignorer.py``: the same reply every turn). A measure of adaptation must rank the first
  above the second: per definition, the share of session pairs it rates that way (AUC in the metric's own
  direction, bootstrap 95 % CI), and its shift detector's precision and recall against the simulator's
  logged shifts.

usage: python bench/thesis_tas.py [--part speed|validity|both] [--peer 40] [--sessions 150]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
LOGS, LDA = SHARED / "preference_shift" / "logs", SHARED / "preference_shift" / "lda"
KB = SHARED / "opendialkg" / "opendialkg_movie_data.json"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"  # ignorer.py: the CRS that never adapts


def crseval(*args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "crseval.cli.main", *args], check=True, capture_output=True
    )
    return time.perf_counter() - t0


def peer_seconds_per_session(n: int) -> float:
    """The study's algorithm per call, as its code runs it, on the first ``n`` gemma:2b sessions."""
    from nltk.tokenize import NLTKWordTokenizer
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel
    from sklearn.metrics.pairwise import cosine_similarity

    from crseval.adaptation.thesis_tas import ALIGNED, JACCARD_FALLBACK, LEAKED, filtered, jaccard
    from crseval.data.kb import load_kb
    from crseval.text.similarity import TfidfSimilarity
    from crseval.text.thesis_lda import NLTK_STOPWORDS, _tokenizers
    from crseval.text.wordnet_nouns import lemmatize

    sentences, words = (
        _tokenizers()[0],
        NLTKWordTokenizer(),
    )  # NLTK's own word tokenizer, as word_tokenize runs it
    lda, dictionary = LdaModel.load(str(LDA / "lda.model")), Dictionary.load(str(LDA / "lda.dict"))
    vectorizer = TfidfSimilarity(load_kb(str(KB)).texts("separate")).vectorizer
    cache: dict[str, tuple] = {}

    def topics(text):
        if text in cache:
            return cache[text]
        tokens = [
            lemmatize(t)
            for s in sentences.tokenize(text.lower())
            for t in words.tokenize(s)
            if t.isalpha() and t not in NLTK_STOPWORDS and len(t) > 2
        ]
        dist = lda.get_document_topics(dictionary.doc2bow(tokens), minimum_probability=0.1)
        if not dist:
            return ()
        cache[text] = tuple(w for w, _ in lda.show_topic(max(dist, key=lambda x: x[1])[0], topn=5))
        return cache[text]

    def sim(a, b):
        return float(cosine_similarity(vectorizer.transform([a]), vectorizer.transform([b]))[0, 0])

    def overlap(a, b):
        j = jaccard(a, b)
        return j if j >= JACCARD_FALLBACK else sim(" ".join(a), " ".join(b))

    t0 = time.perf_counter()
    for i in range(n):
        conv = json.loads((LOGS / f"gemma:2b_session_gemma:2b_{i}.json").read_text())[
            "conversation"
        ]
        users = [(p, t["text"]) for p, t in enumerate(conv) if t["speaker"] == "USER"]
        starts, texts = [users[0][0]], [[users[0][1]]]
        for (_, prev), (pos, text) in zip(users, users[1:]):
            if sim(prev, text) < 0.55 or jaccard(topics(prev), topics(text)) < 0.35:
                starts.append(pos)
                texts.append([text])
            else:
                texts[-1].append(text)
        seg = [filtered(topics(" ".join(t))) for t in texts]
        for k in range(1, len(seg)):
            for p in range(starts[k] + 1, len(conv)):
                if conv[p]["speaker"] == "SYSTEM" and (found := filtered(topics(conv[p]["text"]))):
                    _ = seg[k - 1] and overlap(found, seg[k - 1]) >= LEAKED
                    if seg[k] and overlap(found, seg[k]) >= ALIGNED:
                        break
        [sim(conv[p]["text"], conv[p + 1]["text"]) for p in range(0, len(conv) - 1, 2)]
    return (time.perf_counter() - t0) / n


def speed(peer_sessions: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wall = crseval(
            "shift",
            "score",
            str(LOGS),
            "--kb",
            str(KB),
            "--definition",
            "thesis",
            "--lda",
            str(LDA),
            "--out",
            f"{tmp}/run",
            "--n-boot",
            "2000",
        )
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        mm = pd.read_csv(f"{tmp}/run/tables/model_metrics.csv")
    ref = pd.read_csv(
        SHARED / "preference_shift" / "reference" / "thesis_lda_model_metrics.csv"
    ).set_index("model")
    per = peer_seconds_per_session(peer_sessions)
    print(
        f"crseval shift score --definition thesis, 3,000 shared sessions: {wall:.1f} s wall, {peak:.0f} MB peak"
    )
    print(
        f"peer (the study's algorithm per call, {peer_sessions} sessions): {per:.3f} s/session → "
        f"{per * 3000:.0f} s for 3,000 ({per * 3000 / wall:.1f}× crseval's command)"
    )
    record.table(
        "`crseval shift score LOGS --definition thesis --lda DIR` on the 3,000 shared sessions; named "
        f"peer: the study's algorithm per call ({peer_sessions} sessions, extrapolated)",
        [
            {"": "crseval's command", "seconds for 3,000": round(wall, 1), "peak MB": round(peak)},
            {"": "peer", "seconds for 3,000": round(per * 3000), "peak MB": ""},
        ],
        note=f"crseval's command is {per * 3000 / wall:.1f}× faster",
    )
    columns = (
        "topic_recovery_rate",
        "avg_recovery_delay",
        "topic_interference",
        "context_adaptation_score",
    )
    record.table(
        "Per-model means, crseval − the study's code (reference/thesis_lda_model_metrics.csv)",
        [
            {
                "system": model,
                **{
                    c: round(
                        float(g.set_index("metric")["mean"]["thesis." + c] - ref.loc[model, c]), 4
                    )
                    for c in columns
                },
            }
            for model, g in mm.groupby("system")
        ],
    )
    print("per-model means, crseval − the study's code (reference/thesis_lda_model_metrics.csv):")
    for model, g in mm.groupby("system"):
        got = g.set_index("metric")["mean"]
        print(
            f"  {model}: "
            + ", ".join(
                f"{c} {got['thesis.' + c] - ref.loc[model, c]:+.4f}"
                for c in (
                    "topic_recovery_rate",
                    "avg_recovery_delay",
                    "topic_interference",
                    "context_adaptation_score",
                )
            )
        )


def auc_ci(
    scores: np.ndarray, better: np.ndarray, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    from sklearn.metrics import roc_auc_score

    ok = np.isfinite(scores)
    scores, better = scores[ok], better[ok]
    if len(np.unique(scores)) < 2:
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    boot = [
        roc_auc_score(better[i], scores[i])
        for i in (rng.integers(0, len(scores), len(scores)) for _ in range(n_boot))
        if len(np.unique(better[i])) == 2
    ]
    return (
        float(roc_auc_score(better, scores)),
        float(np.quantile(boot, 0.025)),
        float(np.quantile(boot, 0.975)),
    )


def validity(sessions: int) -> None:
    from crseval.adaptation.metrics import COLUMNS
    from crseval.api import evaluate
    from crseval.core.registry import get_metric

    with tempfile.TemporaryDirectory() as tmp:
        evaluate(
            "shift.run",
            {
                "seed": 3,
                "sessions": sessions,
                "turns": 20,
                "kb": str(KB),
                "n_boot": 100,
                "judge": {"enabled": False},
                "models": [
                    {"name": "template", "kind": "template"},
                    {
                        "name": "ignorer",
                        "kind": "callable",
                        "target": "ignorer:respond",
                        "folder": str(EXAMPLES),
                    },
                ],
            },
            out=Path(tmp, "run"),
        )
        evaluate(
            "shift.score",
            logs=Path(tmp, "run"),
            definition="thesis",
            lda=LDA,
            n_boot=100,
            out=Path(tmp, "thesis"),
        )
        print(
            f"known groups: {sessions} simulated sessions × 20 turns each for the template CRS and one that ignores "
            "the user; AUC = share of (template, ignorer) session pairs a metric rates template better"
        )
        rows = []
        for name, run in (("crseval", "run"), ("thesis", "thesis")):
            s = pd.read_csv(Path(tmp, run, "tables", "shift_sessions.csv"))
            det = pd.read_csv(Path(tmp, run, "tables", "shift_detection.csv"))
            better = (s["system"] == "template").to_numpy()
            precision = det["true_positive"].sum() / det["detected"].sum()
            recall = det["true_positive"].sum() / det["true"].sum()
            print(f"{name}: shift detector precision {precision:.2f}, recall {recall:.2f}")
            for column in COLUMNS[
                name
            ].automatic:  # oriented: a lower-is-better metric is ranked by its negative
                sign = -1.0 if get_metric(column, "shift").higher_is_better is False else 1.0
                auc, lo, hi = auc_ci(sign * s[column].to_numpy(float), better)
                means = s.groupby("system")[column].mean()
                print(
                    f"  {column:36s} template {means['template']:.3f}  ignorer {means['ignorer']:.3f}  "
                    f"AUC {auc:.2f} [{lo:.2f}, {hi:.2f}]"
                )
                rows.append(
                    {
                        "definition": name,
                        "metric": column,
                        "template": round(means["template"], 3),
                        "ignorer": round(means["ignorer"], 3),
                        "AUC [95 % CI]": f"{auc:.2f} [{lo:.2f}, {hi:.2f}]",
                        "detector precision / recall": f"{precision:.2f} / {recall:.2f}",
                    }
                )
        record.table(
            f"Known groups: {sessions} simulated sessions × 20 turns each for the template CRS and one "
            "that ignores the user; AUC = share of (template, ignorer) session pairs a metric rates "
            "template better (in its own direction)",
            rows,
        )
        following(Path(tmp))


FOLLOWING = [
    "follow.follow_rate",
    "follow.satisfaction",
    "follow.turns_to_follow",
    "follow.stale_rate",
    "follow.success",
]


def following(tmp: Path) -> None:
    """What verified following gives the two groups (examples/known_groups.toml's run), and how closely
    each topic measure tracks it per session: Pearson r with a Fisher-z 95 % CI, pooled over both CRSs,
    and its largest |r| within the template CRS's sessions alone."""
    from scipy import stats

    metrics = pd.read_csv(tmp / "run" / "tables" / "model_metrics.csv")
    kept = metrics[metrics["metric"].isin(FOLLOWING)]
    record.table(
        "Verified following of the known groups (mean, 95 % bootstrap CI over sessions)",
        kept[["system", "metric", "mean", "ci_lo", "ci_hi", "n"]].round(3).to_dict("records"),
    )
    rows = []
    for name, run in (("crseval", "run"), ("thesis", "thesis")):
        s = pd.read_csv(tmp / run / "tables" / "shift_sessions.csv")
        for column in (
            ("tas", "recovery_rate", "rd_norm", "context_retention")
            if name == "crseval"
            else (
                "thesis.context_adaptation_score",
                "thesis.topic_recovery_rate",
                "thesis.context_retention",
            )
        ):
            both = s[["follow.follow_rate", column, "system"]].dropna()
            r = stats.pearsonr(both[column], both["follow.follow_rate"])
            lo, hi = r.confidence_interval(0.95)
            template = both[both["system"] == "template"]
            within = stats.pearsonr(template[column], template["follow.follow_rate"]).statistic
            rows.append(
                {
                    "definition": name,
                    "metric": column,
                    "sessions": len(both),
                    "r": round(r.statistic, 3),
                    "r_lo": round(lo, 3),
                    "r_hi": round(hi, 3),
                    "r within template": round(within, 3),
                }
            )
            print(
                f"  r with follow rate: {column:34s} {r.statistic:+.2f} [{lo:+.2f}, {hi:+.2f}]"
                f"  within template {within:+.2f}  ({len(both)} sessions)"
            )
    record.table(
        "Per-session Pearson r of each topic measure with the verified follow rate (both CRSs pooled; "
        "Fisher-z 95 % CI) and within the template CRS's sessions",
        rows,
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("speed", "validity", "both"), default="both")
    ap.add_argument(
        "--peer", type=int, default=40, help="sessions the per-call peer scores (extrapolated)"
    )
    ap.add_argument(
        "--sessions", type=int, default=150, help="simulated sessions per CRS for the validity part"
    )
    args = ap.parse_args()
    if not (LOGS.is_dir() and LDA.is_dir() and KB.is_file()):
        print(f"the shared preference-shift data is not under {SHARED}; nothing to measure")
        return 0
    record.data(LOGS, LDA, KB)
    if args.part in ("speed", "both"):
        speed(args.peer)
    if args.part in ("validity", "both"):
        validity(args.sessions)
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
