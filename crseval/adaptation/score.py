"""Score session records: encode every distinct utterance once, extract topics once, then TAS per
session from its (2T × 2T) cosine block. Keeps the time spent per component."""
from __future__ import annotations

import time
from collections import defaultdict
from typing import Any, Sequence

from crseval.adaptation.tas import TASParams, score_session
from crseval.text.similarity import gram


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
        """TAS components, detection quality (when the record has simulator truth) and per-turn events."""
        t0 = time.perf_counter()
        texts = list(dict.fromkeys(t[k] for s in sessions for t in s["turns"] for k in ("user", "system")))
        row = {t: i for i, t in enumerate(texts)}
        x = self.similarity.encode(texts)
        t0 = self._timed("encode", t0)
        topics = dict(zip(texts, self.topics.extract(texts)))
        t0 = self._timed("topics", t0)
        out = []
        for s in sessions:
            turns = s["turns"]
            idx = [row[t["user"]] for t in turns] + [row[t["system"]] for t in turns]
            g = gram(x[idx])
            t0 = self._timed("similarity", t0)
            truth = [t["turn"] for t in turns if (t.get("truth") or {}).get("shift")] \
                if turns and turns[0].get("truth") is not None else None
            out.append(score_session(g, [topics[t["user"]] for t in turns], [topics[t["system"]] for t in turns],
                                     self.params, truth))
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
    return {"precision": tp / det if det else float("nan"), "recall": tp / true if true else float("nan"),
            "detected": det, "true": true, "true_positive": tp}

