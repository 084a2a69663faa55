"""Is the user simulator a valid instrument? The measurements behind `crseval shift validate RUN`.

- **Leakage**: a user turn that names a catalogue title no CRS turn has named before — the user doing
  the CRS's work (reacting to a title the CRS recommended is not a leak).
- **Shift following**: at each logged shift, whether the user's words state the new value, and whether
  a later user turn before the next shift names the abandoned value again. The rule-based text states
  its shifts by construction; the check matters for LLM-rewritten (``drift``) users and imported logs.
- **Human-likeness**: simulated user turns against human seeker turns (ReDial, INSPIRED): words per
  turn, share of the simulated vocabulary humans never used, a rule-based dialogue-act mix and its
  total-variation distance, and the Fréchet distance between the two sets' sentence embeddings (as in
  FID), next to the human set's own split-half distance — the floor a perfect simulator would reach at
  that sample size.
- **Detector sweep**: precision, recall and F1 of the shift detector against the logged shifts over a
  grid of its two thresholds (consecutive-turn similarity, topic Jaccard), with the original's pair
  and the best-F1 pair — ours, not the original's.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy import linalg

from crseval.adaptation.tas import jaccard
from crseval.data.kb import MovieKB
from crseval.text.movie_text import genre_mentions, mentioned_titles
from crseval.text.similarity import gram
from crseval.core.types import truth_of

ACTS = ("greeting", "question", "request", "feedback", "other")
_WORD = re.compile(r"[a-z']+")
_GREETING = re.compile(r"^(hi|hello|hey|good (morning|evening)|thanks?|thank you|bye|goodbye)\b")
_REQUEST = re.compile(
    r"\b(recommend|suggest|looking for|in the mood|i want|i'd like|i would like|something|"
    r"find me|any (good|ideas?)|what about|how about|switch to|rather)\b"
)
_FEEDBACK = re.compile(
    r"\b(seen|watched|loved|liked|love|like|not sure|no\b|yes\b|sounds|great|perfect|nope|"
    r"maybe|already|boring|hated)\b"
)


def dialogue_act(text: str) -> str:
    """A rule-based act for a user turn (greeting, question, request, feedback, other), first rule wins."""
    t = text.strip().lower()
    if _GREETING.match(t) and len(t.split()) <= 6:
        return "greeting"
    if _REQUEST.search(t):
        return "request"
    if t.endswith("?") or re.match(
        r"^(what|who|which|when|where|why|how|is|are|do|does|did|can|could)\b", t
    ):
        return "question"
    return "feedback" if _FEEDBACK.search(t) else "other"


def leakage(records: Sequence[dict[str, Any]], kb: MovieKB) -> pd.DataFrame:
    """Per model: user turns naming a title the CRS had not named yet, and sessions with at least one; a
    film the user's truth logs as one it liked (``named``) is its own choice, not a leak."""
    title = {m.id: m.title for m in kb.movies}
    rows = []
    for r in records:
        said: set[str] = set()
        leaks = 0
        for t in r["turns"]:
            own = {title.get(i) for i in (truth_of(t) or {}).get("named", ())}
            leaks += bool(set(mentioned_titles(kb, t["user"])) - said - own)
            said |= set(mentioned_titles(kb, t["system"]))
        rows.append({"system": r["model"], "user_turns": len(r["turns"]), "leaked_turns": leaks})
    d = pd.DataFrame(rows, columns=["system", "user_turns", "leaked_turns"])
    g = d.groupby("system", sort=False)
    return pd.DataFrame(
        {
            "sessions": g.size(),
            "user_turns": g["user_turns"].sum(),
            "leaked_turns": g["leaked_turns"].sum(),
            "leak_turn_share": g["leaked_turns"].sum() / g["user_turns"].sum(),
            "sessions_with_leak": g["leaked_turns"].apply(lambda s: float((s > 0).mean())),
        }
    ).reset_index()


def _values(v: Any) -> list[str]:
    """The words a logged shift value is stated with (a genre, a name, a year; lists for blends)."""
    items = v if isinstance(v, list) else [v]
    return [str(x).lower() for x in items if x not in (None, "")]


def shift_following(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Per model and shift kind: shifts logged, share whose new value the user states, share whose old value
    the user names again before the next shift."""
    rows = []
    for r in records:
        turns = r["turns"]
        shifts = [i for i, t in enumerate(turns) if (truth_of(t) or {}).get("shift")]
        for k, i in enumerate(shifts):
            truth, text = truth_of(turns[i]), turns[i]["user"].lower()
            # a genre is stated in any word the genre reader knows for it ("comedies", "romantic")
            text += " " + " ".join(g for g, negated in genre_mentions(text) if not negated)
            new = _values(truth.get("to"))
            old = [v for v in _values(truth.get("from")) if v not in new]
            end = shifts[k + 1] if k + 1 < len(shifts) else len(turns)
            later = " ".join(t["user"].lower() for t in turns[i + 1 : end])
            rows.append(
                {
                    "system": r["model"],
                    "kind": truth.get("kind"),
                    "stated": all(v in text for v in new),
                    "reverted": any(re.search(rf"\b{re.escape(v)}\b", later) for v in old),
                }
            )
    if not rows:
        return pd.DataFrame(columns=["system", "kind", "shifts", "stated_share", "reverted_share"])
    d = pd.DataFrame(rows)
    return (
        d.groupby(["system", "kind"], sort=False)
        .agg(
            shifts=("stated", "size"),
            stated_share=("stated", "mean"),
            reverted_share=("reverted", "mean"),
        )
        .reset_index()
    )


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """‖μa − μb‖² + tr(Σa + Σb − 2 (Σa Σb)^½) between two sets of embeddings (rows)."""
    mu, cov = [x.mean(0) for x in (a, b)], [np.cov(x, rowvar=False) for x in (a, b)]
    with (
        warnings.catch_warnings()
    ):  # fewer turns than dimensions: singular covariances are expected
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        root = linalg.sqrtm(cov[0] @ cov[1])
    root = np.real(root) if np.iscomplexobj(root) else root
    return float(np.sum((mu[0] - mu[1]) ** 2) + np.trace(cov[0] + cov[1] - 2 * root))


def _profile(texts: Sequence[str]) -> tuple[float, Counter, set[str]]:
    acts = Counter(dialogue_act(t) for t in texts)
    words = [w for t in texts for w in _WORD.findall(t.lower())]
    return len(words) / max(len(texts), 1), acts, set(words)


def human_likeness(
    simulated: dict[str, list[str]], human: list[str], embedder, seed: int = 0
) -> pd.DataFrame:
    """One row per simulated model plus the human split-half floor (first half vs second half, shuffled)."""
    rng = np.random.default_rng(seed)
    human = [human[i] for i in rng.permutation(len(human))]
    half = len(human) // 2
    emb_h = embedder.encode(human)
    h_len, h_acts, h_vocab = _profile(human)
    h_share = np.array([h_acts[a] for a in ACTS], float) / max(len(human), 1)
    sets = {"human (split half)": (human[:half], emb_h[:half], emb_h[half:])}
    sets.update({m: (texts, embedder.encode(texts), emb_h) for m, texts in simulated.items()})
    rows = []
    for name, (texts, emb, ref) in sets.items():
        words, acts, vocab = _profile(texts)
        share = np.array([acts[a] for a in ACTS], float) / max(len(texts), 1)
        rows.append(
            {
                "source": name,
                "turns": len(texts),
                "words_per_turn": words,
                "human_words_per_turn": h_len,
                "unseen_vocabulary": len(vocab - h_vocab) / max(len(vocab), 1),
                "act_tv_distance": 0.5 * float(np.abs(share - h_share).sum()),
                **{f"act_{a}": float(s) for a, s in zip(ACTS, share)},
                "frechet": frechet_distance(emb, ref)
                if min(len(emb), len(ref)) >= 2
                else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def detector_sweep(
    records: Sequence[dict[str, Any]],
    scorer,
    sims=np.round(np.arange(0.0, 0.85, 0.05), 2),
    jaccards=(0.0, 0.05, 0.1, 0.2, 0.35, 0.5),
) -> pd.DataFrame:
    """Pooled precision/recall/F1 of "similarity < s or topic Jaccard < j" between consecutive user turns,
    against the logged shifts, for every (s, j) on the grid."""
    s_all, j_all, truth = [], [], []
    for r in records:
        turns = r["turns"]
        if len(turns) < 2 or truth_of(turns[0]) is None:
            continue
        texts = [t["user"] for t in turns]
        sim = gram(scorer.similarity.encode(texts))
        topics = scorer.topics.extract(texts)
        for i in range(1, len(turns)):
            s_all.append(sim[i - 1, i])
            j_all.append(jaccard(topics[i - 1], topics[i]))
            truth.append(bool((truth_of(turns[i]) or {}).get("shift")))
    if not truth:
        return pd.DataFrame(
            columns=["sim_shift", "jaccard_shift", "precision", "recall", "f1", "detected", "true"]
        )
    s_all, j_all, truth = np.array(s_all), np.array(j_all), np.array(truth)
    rows = []
    for s in sims:
        for j in jaccards:
            det = (s_all < s) | (j_all < j)
            tp = int((det & truth).sum())
            p = tp / det.sum() if det.sum() else float("nan")
            rc = tp / truth.sum() if truth.sum() else float("nan")
            rows.append(
                {
                    "sim_shift": float(s),
                    "jaccard_shift": float(j),
                    "precision": p,
                    "recall": rc,
                    "f1": 2 * p * rc / (p + rc) if p + rc > 0 else float("nan"),
                    "detected": int(det.sum()),
                    "true": int(truth.sum()),
                }
            )
    return pd.DataFrame(rows)
