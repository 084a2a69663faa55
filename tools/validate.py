"""The validity gate: re-measure, on the shared data, every validated figure — each with the default command
a user runs — and compare it with its record (`crseval/validated/<check>.json`); the figures through the
embedded LLM only with ``--llm`` (`make validate-llm`).

Prints one table (figure / recorded / now / precision / verdict) and exits 1 when a figure moved beyond the
tolerance its check declares for the method that produced it (``tools/validity_checks.py``: the code holds
the tolerances, a record only the figures), a row appeared or went, or a figure that met its target no longer does; a figure that missed
its target when it was recorded stays labelled (KNOWN, with the issue that owns it) and fails only if it
moves. A validated figure that moves is a regression unless an issue asks for it: then ``--update``
re-records the checks it ran (date, commit, the data's content hashes), and the commit says why.

    make validate                                   # every check without an LLM (CI runs it)
    make validate-llm                               # the checks through the embedded LLM (~11 min)
    make validate ARGS="--only criterion,arena"     # some
    make validate ARGS="--update --only criterion"  # re-record after a change an issue asked for

A check whose data is not under ``--data`` is skipped with a line (the gate has nothing to compare).
"""

from __future__ import annotations

import argparse
import math
import re
import time
from pathlib import Path
from typing import Any

import pandas as pd

from crseval import validated
from crseval.core.errors import CrsevalError
from crseval.core.signature import content_hash, git_describe
from tools.validity_checks import CHECKS, Check

ROOT = Path(__file__).resolve().parents[1]

SHARED = ROOT.parent / "shared" / "data"


def verdict(
    check: Check, record: validated.Record, col: str, rec: Any, now: Any
) -> tuple[str, bool]:
    """(the verdict of one figure against its check's tolerance and the record's target, whether it fails
    the gate)."""
    tol = check.tolerance[col].tolerance
    if isinstance(rec, (int, float)) and isinstance(now, (int, float)):
        moved = not abs(now - rec) <= tol  # NaN against a number moves
    elif isinstance(rec, str) and isinstance(now, str) and tol:
        moved = not _same_printed(rec, now, tol)
    else:
        moved = rec != now
    if moved:
        return f"MOVED (tolerance {tol:g})", True
    lo, hi = record.target.get(col, (-math.inf, math.inf))
    if isinstance(now, (int, float)) and not _missing(now) and not lo <= now <= hi:
        recorded_in = isinstance(rec, (int, float)) and lo <= rec <= hi
        if recorded_in:
            return f"MISSED TARGET [{lo:g}, {hi:g}]", True
        return f"ok · KNOWN: outside [{lo:g}, {hi:g}] ({record.known})", False
    return "ok", False


NUMBER = re.compile(r"[-+]?\d*\.?\d+")


def _same_printed(rec: str, now: str, tol: float) -> bool:
    """Two printed cells: the same words, and each number within ``tol`` of its recorded one."""
    a, b = NUMBER.split(rec), NUMBER.split(now)
    x, y = NUMBER.findall(rec), NUMBER.findall(now)
    return (
        a == b
        and len(x) == len(y)
        and all(abs(float(p) - float(q)) <= tol + 1e-9 for p, q in zip(x, y))
    )


def compare(check: Check, now: pd.DataFrame, record: validated.Record) -> list[dict[str, Any]]:
    """One row per figure of the check (its key, tolerances) against the record (its figures and targets):
    figure, recorded, now, precision, verdict, fails."""
    rows = []
    measured = {tuple(r[k] for k in record.key): r for r in now.to_dict("records")}
    recorded = {tuple(r[k] for k in record.key): r for r in record.rows}
    for key in sorted(set(measured) | set(recorded), key=str):
        name = f"{check.name}: " + " · ".join(map(str, key))
        if key not in measured or key not in recorded:
            gone = key not in measured
            rows.append(
                {
                    "figure": name,
                    "recorded": "—" if not gone else "a row",
                    "now": "a row" if not gone else "—",
                    "precision": "",
                    "verdict": "GONE" if gone else "NEW (not recorded)",
                    "fails": True,
                }
            )
            continue
        for col, precision in check.tolerance.items():
            rec, cur = recorded[key].get(col, math.nan), _plain(measured[key].get(col))
            if _missing(rec) and _missing(cur):
                continue  # not a figure of this row (a discriminator row has no sign)
            text, fails = verdict(check, record, col, rec, cur)
            rows.append(
                {
                    "figure": f"{name} · {col}",
                    "recorded": rec,
                    "now": cur,
                    "precision": f"{precision.tolerance:g} {precision.name}",
                    "verdict": text,
                    "fails": fails,
                }
            )
    return rows


def _plain(value: Any) -> Any:
    """A table's cell as JSON holds it (numpy scalars as Python numbers, NA as NaN)."""
    if hasattr(value, "item"):
        value = value.item()
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return math.nan
    return value


def _missing(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def record_of(check: Check, now: pd.DataFrame, data: Path) -> validated.Record:
    columns = [*check.key, *check.tolerance]
    return validated.Record(
        check=check.name,
        command=check.command.format(data="../shared/data"),
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        commit=git_describe(),
        data={p: content_hash([data / p]) for p in check.data},
        key=list(check.key),
        target={c: list(b) for c, b in check.target.items()},
        known=check.known,
        rows=[
            {c: _plain(r[c]) for c in columns if not _missing(_plain(r[c]))}
            for r in now.to_dict("records")
        ],
    )


def run(checks: list[Check], data: Path, update: bool) -> list[dict[str, Any]]:
    """Every figure's row; a line per check as it goes (skipped, seconds, recorded)."""
    rows = []
    for check in checks:
        missing = [p for p in check.data if not (data / p).exists()]
        if missing:
            print(f"skip {check.name}: {data / missing[0]} not found (the shared data)", flush=True)
            continue
        t0 = time.perf_counter()
        now = check.run(data)
        print(f"{check.name}: measured in {time.perf_counter() - t0:.0f} s", flush=True)
        if update:
            print(
                f"{check.name}: recorded in {validated.save(record_of(check, now, data)).relative_to(ROOT)}",
                flush=True,
            )
        try:
            rows += compare(check, now, validated.load(check.name))
        except CrsevalError as e:
            rows.append(
                {"figure": check.name, "recorded": "—", "now": "measured", "precision": ""}
                | {"verdict": str(e), "fails": True}
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=SHARED, help="the shared data folder")
    ap.add_argument("--only", default="", help="comma-separated checks: " + ", ".join(CHECKS))
    ap.add_argument("--update", action="store_true", help="re-record the checks it runs")
    ap.add_argument(
        "--llm", action="store_true", help="the checks through the embedded LLM instead"
    )
    a = ap.parse_args(argv)
    names = [n for n in a.only.split(",") if n] or [n for n, c in CHECKS.items() if c.llm == a.llm]
    unknown = sorted(set(names) - set(CHECKS))
    if unknown:
        ap.error(f"unknown check {unknown[0]!r} (one of: {', '.join(CHECKS)})")
    rows = run([CHECKS[n] for n in names], a.data, a.update)
    if not rows:
        print("nothing measured")
        return 0
    frame = pd.DataFrame(rows)
    shown = frame.drop(columns="fails")
    for col in ("recorded", "now"):
        shown[col] = [f"{v:.6g}" if isinstance(v, float) else str(v) for v in shown[col]]
    print(shown.to_string(index=False, justify="left"))
    used = {p.name: p for c in names for p in CHECKS[c].tolerance.values()}
    print("precision: " + "; ".join(f"{n} ±{p.tolerance:g}: {p.method}" for n, p in used.items()))
    failed = frame[frame["fails"]]
    print(f"{len(frame)} figures, {len(failed)} failing" + (": " if len(failed) else ""))
    for f in failed["figure"]:
        print(f"  {f}")
    return 1 if len(failed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
