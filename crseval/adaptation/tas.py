"""Topic Adaptation Score (TAS, also called CAS): how well a CRS follows a user who changes topic.

For a session of user turns u_0..u_{T-1} and system replies s_0..s_{T-1} (s_i answers u_i):

- ``cross_coherence``   = mean_i sim(u_i, s_i)
- ``context_retention`` = mean_{i≥1} sim(s_{i-1}, s_i)
- shift detection on user turns i ≥ 1: a shift when sim(u_{i-1}, u_i) < ``sim_topic_shift`` (0.55)
  **or** Jaccard(topics(u_{i-1}), topics(u_i)) < ``topic_jaccard_shift`` (0.35). Two empty topic
  sets have Jaccard 1 (no evidence of a change).
- recovery: the new topics are topics(u_i). System turn j ≥ i is aligned when it covers at least
  ``alignment_threshold`` (0.65) of them (|topics(s_j) ∩ new| / |new|); when u_i has no topics,
  alignment is sim(s_j, u_i). The search stops at the next detected shift and after ``window`` turns.
  The delay is j − i + 1 system turns (answered at once: 1).
- interference: old topics = topics(u_{i-1}) − new; every examined system turn (up to and including
  the recovering one) that still mentions an old topic is a leakage hit; per shift hits / examined.
- ``topic_recovery_rate`` = recovered / shifts; ``avg_recovery_delay`` over recovered shifts;
  ``rd_norm`` = 1 − clamp((delay − 1) / ``delay_scale``); ``ti_norm`` = 1 − clamp(interference).
- **No shift recovered** (but some detected): the delay is undefined and ``rd_norm`` = 0, the worst
  value — a CRS that never follows the user must not get a perfect delay. **No shift detected**:
  rate, rd_norm and ti_norm are undefined (NaN) and TAS averages the two coherence components only
  (``tas_components`` says how many entered).
- TAS = Σ w_k v_k / Σ w_k over the defined components {recovery rate, rd_norm, ti_norm,
  cross_coherence, context_retention}.

Detection quality against the simulator's logged truth: precision and recall of the detected shift
turns (exact turn match), per session.
"""

from __future__ import annotations

from typing import Any, Literal, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from crseval.core.types import truth_of

COMPONENTS = ("recovery_rate", "rd_norm", "ti_norm", "cross_coherence", "context_retention")
Component = Literal["recovery_rate", "rd_norm", "ti_norm", "cross_coherence", "context_retention"]


class TASParams(BaseModel):
    """TAS's parameters, declared once: the scoring config extends this model and the metric registry reads
    its defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sim_topic_shift: float = Field(
        0.55, ge=0, le=1, description="a shift when consecutive user turns are less similar"
    )
    topic_jaccard_shift: float = Field(
        0.35, ge=0, le=1, description="a shift when the Jaccard overlap of their topics is lower"
    )
    alignment_threshold: float = Field(
        0.65, ge=0, le=1, description="share of the new topics a system turn must cover to recover"
    )
    delay_scale: float = Field(
        5.0, gt=0, description="recovery delay (turns beyond 1) that scores rd_norm 0"
    )
    window: int = Field(6, ge=1, le=100, description="system turns searched for a recovery")
    weights: dict[Component, float] = Field(
        default_factory=lambda: dict.fromkeys(COMPONENTS, 1.0),
        description="weight of each TAS component",
    )

    def signature(self) -> str:
        w = ",".join(f"{k}:{self.weights.get(k, 0):g}" for k in COMPONENTS)
        return (
            f"tas(sim_shift={self.sim_topic_shift},jaccard_shift={self.topic_jaccard_shift},"
            f"align={self.alignment_threshold},delay_scale={self.delay_scale:g},window={self.window},w={w})"
        )

    def signature_params(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if k != "weights"}


def jaccard(a: frozenset, b: frozenset) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def clamp(x: float) -> float:
    """x clamped to [0, 1]."""
    return min(1.0, max(0.0, x))


def logged_shifts(turns: Sequence[dict[str, Any]]) -> list[int] | None:
    """The turns where the simulator logged a shift; None when the turns carry no simulator truth."""
    if not turns or truth_of(turns[0]) is None:
        return None
    return [t["turn"] for t in turns if (truth_of(t) or {}).get("shift")]


def _detect(
    g: np.ndarray, user_topics: Sequence[frozenset], params: TASParams, events: list[dict[str, Any]]
) -> list[int]:
    """User turns i ≥ 1 where the similarity or the topic overlap with turn i − 1 drops below threshold."""
    n, detected = len(user_topics), []
    for i in range(1, n):
        s, j = g[i - 1, i], jaccard(user_topics[i - 1], user_topics[i])
        reasons = (
            [f"sim {s:.2f} < {params.sim_topic_shift}"] if s < params.sim_topic_shift else []
        ) + (
            [f"Jaccard {j:.2f} < {params.topic_jaccard_shift}"]
            if j < params.topic_jaccard_shift
            else []
        )
        if reasons:
            detected.append(i)
            events[i].update(detected=True, reason="; ".join(reasons))
    return detected


def _recover(
    g: np.ndarray,
    user_topics: Sequence[frozenset],
    sys_topics: Sequence[frozenset],
    detected: list[int],
    params: TASParams,
    events: list[dict[str, Any]],
) -> tuple[list[int], list[float]]:
    """(delays of the recovered shifts, interference per detected shift)."""
    n = len(user_topics)
    delays, interference = [], []
    for k, i in enumerate(detected):
        new = user_topics[i]
        old = user_topics[i - 1] - new
        stop = min(n, i + params.window, detected[k + 1] if k + 1 < len(detected) else n)
        hits = examined = 0
        for j in range(i, stop):
            examined += 1
            hits += bool(old & sys_topics[j])
            align = len(new & sys_topics[j]) / len(new) if new else float(g[n + j, i])
            if align >= params.alignment_threshold:
                delays.append(j - i + 1)
                events[i].update(recovered_at=j, aligned=round(align, 3))
                break
        events[i]["leaks"] = hits
        interference.append(hits / examined if examined else 0.0)
    return delays, interference


def _combine(out: dict[str, Any], params: TASParams) -> None:
    num = den = 0.0
    used = 0
    for c in COMPONENTS:
        w, v = params.weights.get(c, 0.0), out[c]
        if w and np.isfinite(v):
            num, den, used = num + w * v, den + w, used + 1
    out["tas"] = num / den if den else float("nan")
    out["tas_components"] = used


def score_session(
    g: np.ndarray,
    user_topics: Sequence[frozenset],
    sys_topics: Sequence[frozenset],
    params: TASParams = TASParams(),
    true_shifts: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Score one session. ``g`` is the (2T × 2T) cosine matrix of [u_0..u_{T-1}, s_0..s_{T-1}]."""
    n = len(user_topics)
    cross = float(np.mean([g[i, n + i] for i in range(n)])) if n else float("nan")
    retention = (
        float(np.mean([g[n + i - 1, n + i] for i in range(1, n)])) if n > 1 else float("nan")
    )
    events: list[dict[str, Any]] = [
        {
            "turn": i,
            "detected": False,
            "reason": "",
            "recovered_at": None,
            "aligned": None,
            "leaks": 0,
        }
        for i in range(n)
    ]
    detected = _detect(g, user_topics, params, events)
    delays, interference = _recover(g, user_topics, sys_topics, detected, params, events)
    out: dict[str, Any] = {
        "cross_coherence": cross,
        "context_retention": retention,
        "shifts_detected": len(detected),
        "shifts_recovered": len(delays),
    }
    if detected:
        out["recovery_rate"] = len(delays) / len(detected)
        out["avg_recovery_delay"] = float(np.mean(delays)) if delays else float("nan")
        out["rd_norm"] = (
            1 - clamp((out["avg_recovery_delay"] - 1) / params.delay_scale) if delays else 0.0
        )
        out["topic_interference"] = float(np.mean(interference))
        out["ti_norm"] = 1 - clamp(out["topic_interference"])
    else:
        out.update(
            recovery_rate=float("nan"),
            avg_recovery_delay=float("nan"),
            rd_norm=float("nan"),
            topic_interference=float("nan"),
            ti_norm=float("nan"),
        )
    _combine(out, params)
    if true_shifts is not None:
        detection(out, events, true_shifts)
    out["events"] = events
    return out


def detection(
    out: dict[str, Any], events: list[dict[str, Any]], true_shifts: Sequence[int]
) -> None:
    """Precision and recall of the detected shift turns (``events[k]["detected"]``) against the simulator's
    logged ones (exact turn match); marks each event with ``true_shift``."""
    truth, det = set(true_shifts), {e["turn"] for e in events if e["detected"]}
    out["detection_precision"] = len(truth & det) / len(det) if det else float("nan")
    out["detection_recall"] = len(truth & det) / len(truth) if truth else float("nan")
    out["true_shifts"] = len(truth)
    for e in events:
        e["true_shift"] = e["turn"] in truth
