"""Verified following read from the user's words (what imported logs get) against the simulator's logged
truth (the peer, measured on the same sessions): does the reading find the same shifts, and does it give
each CRS the same follow rate?

The reference CRSs of known behaviour (``kind = "reference"``) meet the same simulated users; every
session is scored twice — against its logged truth, and with the truth removed, from the user's words —
and the bench prints per-turn Cohen's κ of "a shift happened here" (95 % CI: sessions resampled) and per
CRS both follow rates (target: within .05). ``--drift`` has the embedded LLM rewrite the user's
utterances (an LLM-written user: the reading's hard case; ~7 s per user turn on 2 cores). ``--reader
llm`` reads the words with the embedded LLM instead of the rules (``scoring.reader = "llm"``: one call per
user turn), ``--models`` picks the reference CRSs (fewer sessions to read).

usage: python bench/following_from_words.py [--sessions 100] [--turns 12] [--kb PATH|sample] [--drift N]
       [--reader rules|llm] [--models template,stubborn]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _record as record
import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
KB = SHARED / "opendialkg" / "opendialkg_movie_data.json"


def sessions(n: int, turns: int, kb: str | None, drift: bool, models: list[str]) -> list[dict]:
    import crseval
    from crseval.runs.store import RunStore

    out = Path(tempfile.mkdtemp()) / "run"
    crseval.evaluate(
        "shift.run",
        models=[{"name": m, "kind": "reference", "reference": m} for m in models],
        sessions=n,
        turns=turns,
        kb=kb,
        judge={"enabled": False},
        simulator={"drift": {}} if drift else {},
        n_boot=100,
        out=out,
    )
    return RunStore(out).records("results")


def reader_for(name: str, kb):
    """None (the rules), or the LLM reader on the embedded model with a cache kept between runs."""
    if name == "rules":
        return None
    from crseval.adaptation.wish_reader import LLMWishReader
    from crseval.llm import LLMConfig, make_client

    cache = Path(tempfile.gettempdir()) / "crseval-bench-wishes.sqlite"
    return LLMWishReader(make_client(LLMConfig(), cache), kb)


def follow_rates(
    records: list[dict], kb: str | None, reader: str = "rules"
) -> tuple[list[tuple[list[bool], list[bool]]], pd.DataFrame, float]:
    """Each session's logged and read "a shift happened here" per turn, per CRS the follow rate from the
    logged truth and read from the words (Δ = words − truth), and the seconds both scorings took."""
    from crseval.adaptation.following import Following
    from crseval.data.kb import load_kb

    catalogue = load_kb(kb)
    following = Following(catalogue, reader_for(reader, catalogue))
    t0 = time.perf_counter()
    per_session, rates = [], {}
    for r in records:
        turns = r["turns"]
        read = following.read_wishes(turns)
        per_session.append(
            ([bool(t["truth"].get("shift")) for t in turns][1:], [w["shift"] for w in read][1:])
        )
        truth = following.session(turns)["follow.follow_rate"]
        words = following.session([{k: v for k, v in t.items() if k != "truth"} for t in turns])
        rates.setdefault(r["model"], []).append((truth, words["follow.follow_rate"]))
    rows = []
    for model, pairs in rates.items():
        t, w = np.nanmean(np.array(pairs, float), axis=0)
        rows.append(
            {
                "CRS": model,
                "follow rate, logged truth": round(t, 3),
                "follow rate, read from words": round(w, 3),
                "Δ": round(w - t, 3),
            }
        )
    return per_session, pd.DataFrame(rows), time.perf_counter() - t0


def compare(
    records: list[dict], kb: str | None, label: str, reader: str = "rules", n_boot: int = 1000
) -> None:
    per_session, rates, seconds = follow_rates(records, kb, reader)

    def kappa(idx) -> float:
        a = [x for i in idx for x in per_session[i][0]]
        b = [x for i in idx for x in per_session[i][1]]
        return cohen_kappa_score(a, b)

    rng = np.random.default_rng(0)
    k = kappa(range(len(per_session)))
    draws = [kappa(rng.integers(0, len(per_session), len(per_session))) for _ in range(n_boot)]
    lo, hi = np.percentile(draws, [2.5, 97.5])
    shifts = sum(sum(t) for t, _ in per_session), sum(sum(w) for _, w in per_session)
    print(
        f"[{label}, reader {reader}] {len(records)} sessions: shift per turn, words vs truth: "
        f"κ {k:.3f} [{lo:.3f}, {hi:.3f}] "
        f"({shifts[0]} logged shifts, {shifts[1]} read); {seconds / len(records) * 1000:.1f} ms per session "
        "for both scorings"
    )
    worst = float(rates["Δ"].abs().max())
    for r in rates.itertuples(index=False):
        print(f"  {r[0]:13s} follow rate: truth {r[1]:.3f}  words {r[2]:.3f}  (Δ {r[3]:+.3f})")
    record.table(
        f"{label}, {len(records)} sessions, reader {reader}: per-turn shift κ {k:.3f} [{lo:.3f}, {hi:.3f}] "
        f"({shifts[0]} logged shifts, {shifts[1]} read); named peer: the logged truth",
        rates.to_dict("records"),
        note=f"largest |Δ| {worst:.3f} (target ≤ .05)",
    )
    print(f"  largest |Δ| {worst:.3f} (target ≤ .05: {'met' if worst <= 0.05 else 'NOT met'})")


def main() -> int:
    from crseval.simulation.references import NAMES

    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--turns", type=int, default=12)
    ap.add_argument("--kb", default=str(KB) if KB.exists() else "sample")
    ap.add_argument("--drift", type=int, default=0, help="also N sessions with LLM-rewritten users")
    ap.add_argument("--reader", choices=["rules", "llm"], default="rules")
    ap.add_argument("--models", default=",".join(NAMES), help="reference CRSs, comma-separated")
    args = ap.parse_args()
    kb = None if args.kb == "sample" else args.kb
    record.data(*[kb] if kb else [])
    models = args.models.split(",")
    readers = (
        ["rules", "llm"] if args.reader == "llm" else ["rules"]
    )  # the rules: the peer, same sessions
    if args.sessions:
        records = sessions(args.sessions, args.turns, kb, False, models)
        for reader in readers:
            compare(records, kb, "rule-based users", reader)
    if args.drift:
        drifted = [m for m in models if m in ("template", "stubborn")] or models[:2]
        records = sessions(args.drift, args.turns, kb, True, drifted)
        for reader in readers:
            compare(records, kb, "LLM-rewritten users (drift)", reader)
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
