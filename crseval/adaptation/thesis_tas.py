"""The preference-shift study's Topic Adaptation Score (its code calls the aggregate the "context
adaptation score"), computed as ``../shared/specs/thesis_tas.md`` states it: ``--definition thesis``.

Per session (a conversation of alternating user and system turns):

- **segments**: walking the user turns, a shift opens a new segment when the TF-IDF cosine of a turn
  and the previous user turn is below 0.55 or the Jaccard overlap of their (unfiltered) LDA topics is
  below 0.35 — two empty topic lists overlap 0, so almost every turn is a shift; a segment's topics
  are the filtered topics of its user texts joined by spaces.
- **recovery** of shift k: scan every later system turn to the end of the conversation (``seen``
  counts them); a turn with filtered topics aligns with the new segment by Jaccard, or by the cosine
  of the joined topic words when the Jaccard is below 0.3, and leaks to the old segment the same way;
  alignment ≥ 0.65 recovers (delay = ``seen``), leakage ≥ 0.65 is a leakage hit; interference = hits /
  max(1, delay or min(seen, 4)).
- recovery rate, average delay over recovered shifts (**0 when none recovered**), mean interference
  (all 0 without a shift); cross-coherence (user turn vs its reply) and context retention
  (consecutive replies); the aggregate Σ wₖvₖ / Σ wₖ with weights .01 (rate), .02 (1 − clamp((delay −
  1) / 5)), .02 (1 − clamp(interference)), .30, .15.

Topics come from the study's LDA model (:class:`~crseval.text.thesis_lda.ThesisLDA`, seeded per text);
similarity is the TF-IDF fitted on the catalogue's titles and plots as separate documents. Large
batches are scored whole sessions at a time in forked workers (:mod:`crseval.core.forked`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from crseval.adaptation.tas import clamp, detection, logged_shifts
from crseval.core.forked import fork_map, split, worker_count
from crseval.text.similarity import TfidfSimilarity, gram
from crseval.text.thesis_lda import ThesisLDA

SHIFT_SIMILARITY, SHIFT_JACCARD = 0.55, 0.35
JACCARD_FALLBACK, ALIGNED, LEAKED = 0.3, 0.65, 0.65
DELAY_SCALE, INTERFERENCE_TURNS = 5.0, 4
WEIGHTS = {"rate": 0.01, "rd": 0.02, "ti": 0.02, "cross_coherence": 0.30, "context_retention": 0.15}
PREFIX = "thesis."
GENERIC = frozenset(
    "recommendation conversation system response chat user talk suggestion question answer film movie "
    "thing stuff".split()
)
HINTS = (
    "romance",
    "horror",
    "sci-fi",
    "science fiction",
    "drama",
    "comedy",
    "thriller",
    "actor",
    "actors",
    "cast",
    "director",
    "plot",
    "ending",
    "mood",
    "emotional",
    "gore",
    "space",
    "aliens",
    "ghost",
    "jump scare",
    "recommendation",
    "movie",
    "film",
)
HINT_PATTERN = re.compile(
    r"(love|fear|sad|happy|romantic|tense|dark|futur|drama|emot|space|ghost|sci)"
)
PARALLEL_MIN_SESSIONS = 400


@lru_cache(maxsize=4096)
def filtered(words: tuple[str, ...]) -> tuple[str, ...]:
    """The study's topic filter: domain words only, generic ones out, first 5 distinct."""
    out: list[str] = []
    for w in (w.lower().strip() for w in words):
        if (
            len(w) > 1
            and w not in GENERIC
            and (any(h in w for h in HINTS) or HINT_PATTERN.search(w))
            and w not in out
        ):
            out.append(w)
    return tuple(out[:5])


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard of two lists as sets; two empty lists give 0 (the study's rule, not 1)."""
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a or b else 0.0


@dataclass
class _Segment:
    start: int  # position of its first user turn in the conversation
    texts: list[str]
    topics: tuple[str, ...] = ()


class _Session:
    """One conversation's texts, their cosine matrix and topics, and the study's steps over them."""

    def __init__(
        self, conversation: Sequence[tuple[str, str]], rows: dict[str, int], x, topics: dict
    ) -> None:
        self.conv = conversation
        self.g = gram(x[[rows[t] for _, t in conversation]])
        self.topics = topics
        self.users = [i for i, (who, _) in enumerate(conversation) if who == "USER"]
        self.systems = [i for i, (who, _) in enumerate(conversation) if who == "SYSTEM"]
        self.events = [
            {
                "turn": k,
                "detected": False,
                "reason": "",
                "recovered_at": None,
                "aligned": None,
                "leaks": 0,
            }
            for k in range(len(self.users))
        ]

    def segments(self) -> list[_Segment]:
        first = self.users[0]
        segments = [_Segment(first, [self.conv[first][1]])]
        for k, (prev, pos) in enumerate(zip(self.users, self.users[1:]), start=1):
            s, j = (
                self.g[prev, pos],
                jaccard(self.topics[self.conv[prev][1]], self.topics[self.conv[pos][1]]),
            )
            if s < SHIFT_SIMILARITY or j < SHIFT_JACCARD:
                segments.append(_Segment(pos, [self.conv[pos][1]]))
                why = ([f"sim {s:.2f} < {SHIFT_SIMILARITY}"] if s < SHIFT_SIMILARITY else []) + (
                    [f"Jaccard {j:.2f} < {SHIFT_JACCARD}"] if j < SHIFT_JACCARD else []
                )
                self.events[k].update(detected=True, reason="; ".join(why))
            else:
                segments[-1].texts.append(self.conv[pos][1])
        return segments

    def recover(
        self, new: tuple[str, ...], old: tuple[str, ...], start: int, overlap
    ) -> tuple[int, int, int | None]:
        """(system turns seen, leakage hits, position of the recovering turn or None)."""
        seen = hits = 0
        for pos in (p for p in self.systems if p > start):
            seen += 1
            found = filtered(self.topics[self.conv[pos][1]])
            if not found:
                continue
            align = overlap(found, new) if new else 0.0
            hits += (overlap(found, old) if old else 0.0) >= LEAKED
            if align >= ALIGNED:
                return seen, hits, pos
        return seen, hits, None

    def coherence(self) -> tuple[float, float]:
        pairs = [
            self.g[i, i + 1]
            for i in range(0, len(self.conv) - 1, 2)
            if self.conv[i][0] == "USER" and self.conv[i + 1][0] == "SYSTEM"
        ]
        retention = [self.g[a, b] for a, b in zip(self.systems, self.systems[1:])]
        return float(np.mean(pairs)) if pairs else 0.0, float(
            np.mean(retention)
        ) if retention else 0.0


class ThesisScorer:
    """``score(records)`` → the study's per-session values, as ``thesis.*`` metrics (plus the shift
    counts, per-turn events and, with simulator truth, detection quality)."""

    definition = "thesis"

    def __init__(self, similarity: TfidfSimilarity, lda: ThesisLDA) -> None:
        self.similarity, self.lda = similarity, lda
        self._overlaps: dict[tuple, float] = {}

    def signature(self) -> str:
        return (
            f"thesis-tas(spec=thesis_tas.md,shift<{SHIFT_SIMILARITY}|J<{SHIFT_JACCARD},align>={ALIGNED},"
            f"leak>={LEAKED},fallback<{JACCARD_FALLBACK},w=.01/.02/.02/.30/.15)|sim={self.similarity.signature}"
            f"|topics={self.lda.signature}"
        )

    def score(self, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        records = list(records)
        workers = worker_count() if len(records) >= PARALLEL_MIN_SESSIONS else 1
        size = lambda r: sum(len(t["user"]) + len(t["system"]) for t in r["turns"])  # noqa: E731  (work ∝ text)
        return [r for part in fork_map(self._score, split(records, workers, size)) for r in part]

    def _score(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        convs = [
            [(who, t[k]) for t in r["turns"] for who, k in (("USER", "user"), ("SYSTEM", "system"))]
            for r in records
        ]
        texts = list(dict.fromkeys(t for c in convs for _, t in c))
        rows = {t: i for i, t in enumerate(texts)}
        x = self.similarity.encode(texts)
        topics = dict(zip(texts, self.lda.extract(texts)))
        sessions = [_Session(c, rows, x, topics) for c in convs]
        cut = [s.segments() for s in sessions]
        joined = self.lda.extract([" ".join(seg.texts) for segs in cut for seg in segs])
        for seg, found in zip((seg for segs in cut for seg in segs), joined):
            seg.topics = filtered(found)
        return [self._values(s, segs, r) for s, segs, r in zip(sessions, cut, records)]

    def _overlap(self, a: tuple[str, ...], b: tuple[str, ...]) -> float:
        """Jaccard of two filtered topic lists, or the cosine of their joined words when that is below 0.3."""
        if (a, b) not in self._overlaps:
            j = jaccard(a, b)
            self._overlaps[a, b] = (
                j
                if j >= JACCARD_FALLBACK
                else float(
                    self.similarity.encode([" ".join(a)])
                    .multiply(self.similarity.encode([" ".join(b)]))
                    .sum()
                )
            )
        return self._overlaps[a, b]

    def _values(
        self, session: _Session, segments: list[_Segment], record: dict[str, Any]
    ) -> dict[str, Any]:
        delays, interference = [], []
        for k, (old, new) in enumerate(zip(segments, segments[1:]), start=1):
            seen, hits, pos = session.recover(new.topics, old.topics, new.start, self._overlap)
            if pos is not None:
                delays.append(seen)
            interference.append(
                hits / max(1, seen if pos is not None else min(seen, INTERFERENCE_TURNS))
            )
            event = session.events[session.users.index(new.start)]
            event.update(
                leaks=hits, recovered_at=None if pos is None else session.systems.index(pos)
            )
        shifts = len(segments) - 1
        rate = len(delays) / shifts if shifts else 0.0
        delay = float(np.mean(delays)) if delays else 0.0
        inter = float(np.mean(interference)) if interference else 0.0
        cross, retention = session.coherence()
        parts = {
            "rate": rate,
            "rd": 1 - clamp((delay - 1) / DELAY_SCALE),
            "ti": 1 - clamp(inter),
            "cross_coherence": cross,
            "context_retention": retention,
        }
        out: dict[str, Any] = {
            "definition": self.definition,
            "shifts_detected": shifts,
            "shifts_recovered": len(delays),
            PREFIX + "topic_recovery_rate": rate,
            PREFIX + "avg_recovery_delay": delay,
            PREFIX + "topic_interference": inter,
            PREFIX + "cross_coherence": cross,
            PREFIX + "context_retention": retention,
            PREFIX + "context_adaptation_score": sum(WEIGHTS[c] * v for c, v in parts.items())
            / sum(WEIGHTS.values()),
        }
        truth = logged_shifts(record["turns"])
        if truth is not None:
            detection(out, session.events, truth)
        out["events"] = session.events
        return out
