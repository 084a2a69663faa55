"""Score session records: encode every distinct utterance once, extract topics once, then TAS per
session from its (2T × 2T) cosine block. Keeps the time spent per component.

Sessions are scored independently: for large batches (imported logs) on Linux they are split, whole
sessions at a time, over forked worker processes (:mod:`crseval.core.forked`, one per core, up to 8) that
inherit the fitted TF-IDF model and the topic extractor, and each scores its share end to end (encoding,
topics, TAS); the results are identical to one process.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any, Sequence

from crseval.adaptation.tas import TASParams, logged_shifts, score_session
from crseval.core.forked import fork_map, split, worker_count
from crseval.text.similarity import TfidfSimilarity, gram
from crseval.text.topics import KeywordTopics

PARALLEL_MIN_UTTERANCES = 40_000


def workers_for(n_utterances: int, similarity, topics) -> int:
    """Processes worth starting: large batches, pure-Python models (TF-IDF, keyword topics), Linux."""
    if (
        n_utterances < PARALLEL_MIN_UTTERANCES
        or not isinstance(similarity, TfidfSimilarity)
        or not isinstance(topics, KeywordTopics)
    ):
        return 1
    return worker_count()


class Scorer:
    def __init__(self, similarity, topics, params: TASParams = TASParams()) -> None:
        self.similarity, self.topics, self.params = similarity, topics, params
        self.seconds: dict[str, float] = defaultdict(float)

    def signature(self) -> str:
        return f"{self.params.signature()}|sim={self.similarity.signature}|topics={self.topics.signature}"

    def _timed(self, part: str, t0: float) -> float:
        t1 = time.perf_counter()
        self.seconds[part] += t1 - t0
        return t1

    def score(self, sessions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """TAS components, detection quality (when the record has simulator truth) and per-turn events; large
        batches are split, whole sessions at a time, over forked worker processes."""
        sessions = list(sessions)
        workers = workers_for(
            sum(2 * len(s["turns"]) for s in sessions), self.similarity, self.topics
        )
        if workers == 1:
            return self._score(sessions)
        parts = fork_map(
            lambda chunk: (self._score(chunk), dict(self.seconds)), split(sessions, workers)
        )
        for _, seconds in parts:  # CPU seconds summed over workers
            for k, v in seconds.items():
                self.seconds[k] += v
        return [r for part, _ in parts for r in part]

    def _score(self, sessions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        texts = list(
            dict.fromkeys(t[k] for s in sessions for t in s["turns"] for k in ("user", "system"))
        )
        row = {t: i for i, t in enumerate(texts)}
        x = self.similarity.encode(texts)
        topics = dict(zip(texts, self.topics.extract(texts)))
        t0 = self._timed("encode + topics", t0)
        out = []
        for s in sessions:
            turns = s["turns"]
            idx = [row[t["user"]] for t in turns] + [row[t["system"]] for t in turns]
            g = gram(x[idx])
            t0 = self._timed("similarity", t0)
            truth = logged_shifts(turns)
            out.append(
                score_session(
                    g,
                    [topics[t["user"]] for t in turns],
                    [topics[t["system"]] for t in turns],
                    self.params,
                    truth,
                )
            )
            t0 = self._timed("tas", t0)
        return out


def detection_summary(results: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Pooled (micro) precision/recall of the shift detector over sessions with simulator truth."""
    tp = det = true = 0
    for r in results:
        ev = r["tas"].get("events", []) if "tas" in r else r.get("events", [])
        if not ev or "true_shift" not in ev[0]:
            continue
        tp += sum(e["detected"] and e["true_shift"] for e in ev)
        det += sum(e["detected"] for e in ev)
        true += sum(e["true_shift"] for e in ev)
    return {
        "precision": tp / det if det else float("nan"),
        "recall": tp / true if true else float("nan"),
        "detected": det,
        "true": true,
        "true_positive": tp,
    }
