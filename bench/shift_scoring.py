"""Scoring preference-shift logs: 6 models × 1,000 sessions × 20 turns (40 utterances each) with TF-IDF
and keyword topics. Target: ≤ 60 s on 2 cores. The logs are generated first (untimed) with the user
simulator and KB CRSs whose replies come from the scripted backend (a different reply style per model).

Named peer, measured in the same run on a subset: per-pair scoring as the reference scripts do it —
``cosine_similarity`` on freshly transformed TF-IDF vectors for every utterance pair the formulas read,
topics recomputed for every utterance, no caching. FIELD_NOTES: the reference thesis code scored
6,000 sessions at 8.7 sessions/s (with LDA topics).

usage: python bench/shift_scoring.py [--models 6] [--sessions 1000] [--turns 20] [--peer 100] [--kb PATH]
"""
from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sklearn.metrics.pairwise import cosine_similarity

from crseval.adaptation.score import Scorer
from crseval.adaptation.tas import TASParams, jaccard
from crseval.llm.client import LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.simulation.crs import KBCRS
from crseval.data.kb import load_kb
from crseval.simulation.session import session_seed
from crseval.simulation.user import UserSimulator
from crseval.text.similarity import TfidfSimilarity
from crseval.text.topics import KeywordTopics

DEFAULT_KB = Path(__file__).resolve().parents[2] / "shared" / "data" / "opendialkg" / "opendialkg_movie_data.json"
STYLES = ["How about {a}? It fits what you asked for.", "I recommend {a} and {b}.",
          "You might enjoy {a}. Do you like older films?", "{a} is a great pick, or maybe {b}.",
          "Try {a}; it is well liked.", "Based on that, {b} or {a} would work."]


def responder(style: str):
    def reply(req):
        lines = [ln.split(". ", 1)[1].split(" (")[0].split(":")[0] for ln in req.messages[-1].content.splitlines()
                 if ln[:1].isdigit() and ". " in ln]
        a, b = (lines + ["something else", "another one"])[:2]
        return style.format(a=a, b=b)
    return reply


def generate_model(kb_path: str | None, m: int, sessions: int, turns: int) -> list[dict]:
    kb = load_kb(kb_path)
    out = []
    client = LLMClient(ScriptedBackend(responder(STYLES[m % len(STYLES)])))
    for s in range(sessions):
        seed = session_seed(0, s)
        user, crs = UserSimulator(kb, seed), KBCRS(f"m{m}", kb, client, seed=seed)
        history, log = [], []
        text, truth = user.opening()
        for t in range(turns):
            history.append({"speaker": "user", "text": text})
            reply = crs.respond(history)
            history.append({"speaker": "system", "text": reply.text})
            log.append({"turn": t, "user": text, "system": reply.text, "truth": truth})
            text, truth = user.reply(t + 1, reply.text)
        out.append({"key": f"m{m}|{s}", "model": f"m{m}", "session": s, "turns": log})
    return out


def generate(kb_path: str | None, models: int, sessions: int, turns: int) -> list[dict]:
    """One process per model (the simulator and retrieval are pure Python)."""
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        parts = pool.map(generate_model, [kb_path] * models, range(models), [sessions] * models, [turns] * models)
        return [s for part in parts for s in part]


def peer(sessions: list[dict], kb, params: TASParams) -> None:
    """Per-pair scoring without batching or caching (what the reference scripts do)."""
    vec = TfidfSimilarity(kb.texts()).vectorizer
    topics = KeywordTopics(kb)

    def sim(a, b):
        return float(cosine_similarity(vec.transform([a]), vec.transform([b]))[0, 0])
    for s in sessions:
        u = [t["user"] for t in s["turns"]]
        y = [t["system"] for t in s["turns"]]
        [sim(a, b) for a, b in zip(u, y)]
        [sim(y[i - 1], y[i]) for i in range(1, len(y))]
        for i in range(1, len(u)):
            shift = sim(u[i - 1], u[i]) < params.sim_topic_shift or \
                jaccard(topics.one(u[i - 1]), topics.one(u[i])) < params.topic_jaccard_shift
            if shift:
                new = topics.one(u[i])
                for j in range(i, min(len(y), i + params.window)):
                    if new and len(new & topics.one(y[j])) / len(new) >= params.alignment_threshold:
                        break


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=6)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--peer", type=int, default=100, help="sessions the peer scores (extrapolated)")
    ap.add_argument("--kb", default=str(DEFAULT_KB) if DEFAULT_KB.exists() else None)
    a = ap.parse_args()
    kb = load_kb(a.kb)
    print(f"KB: {kb.info.signature()} ({len(kb)} movies)")
    t0 = time.perf_counter()
    logs = generate(a.kb, a.models, a.sessions, a.turns)
    n = len(logs)
    print(f"generated {n} sessions × {a.turns} turns in {time.perf_counter() - t0:.1f} s (untimed)")

    t0 = time.perf_counter()
    scorer = Scorer(TfidfSimilarity(kb.texts()), KeywordTopics(kb))
    fit = time.perf_counter() - t0
    results = scorer.score(logs)
    total = time.perf_counter() - t0
    assert len(results) == n
    print(f"crseval: {n} sessions in {total:.1f} s = {n / total:.0f} sessions/s (target ≤ 60 s: "
          f"{'met' if total <= 60 else 'NOT met'})")
    split = {"fit TF-IDF": fit, **scorer.seconds}
    print("  time by component: " + ", ".join(f"{k} {v:.2f} s" for k, v in split.items()))

    sub = logs[:a.peer]
    t0 = time.perf_counter()
    peer(sub, kb, TASParams())
    pt = time.perf_counter() - t0
    rate = len(sub) / pt
    print(f"peer (per-pair, uncached): {rate:.1f} sessions/s → {n / rate:.0f} s for all {n} sessions (extrapolated)")
    print(f"ratio crseval / peer throughput: {(n / total) / rate:.1f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
