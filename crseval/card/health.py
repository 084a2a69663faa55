"""What a card rests on, said on the card: for each CRS of yours, the sessions that failed (with the first
error) and the calls that were retried, read from the card's session parts."""

from __future__ import annotations

from crseval.core.numbers import counted
from crseval.core.types import truth_of
from crseval.card.config import CardConfig
from crseval.card.manifest import Parts


def session_records(done: Parts) -> dict[str, list[dict]]:
    """The session records of each of a card's session parts that ran (``shift``, ``shift-llm``)."""
    from crseval.adaptation.scoring import STREAM

    return {
        part: done.results[part].records(STREAM)
        for part in ("shift", "shift-llm")
        if part in done.results
    }


def health_lines(config: CardConfig, sessions: dict[str, list[dict]]) -> list[str]:
    """One line per (your CRS, session part) with failed sessions or retried calls; none when all is well."""
    out = []
    for part, records in sessions.items():
        for system in (config.system, *config.baselines):
            mine = [r for r in records if r["model"] == system]
            failed = [r for r in mine if r.get("errors")]
            retried = sum(int(r.get("retries", 0)) for r in mine)
            if failed or retried:
                first = f" (first: {failed[0]['errors'][0]})" if failed else ""
                out.append(
                    f"{system}: {len(failed)} of {counted(len(mine), 'session')} failed in {part}{first}, left out of "
                    f"its scores (fix it, then the same command with --retry-failed); "
                    f"{counted(retried, 'CRS call')} retried"
                )
    return out


TESTED = (  # (what the users did, one and many, in words; whether a turn's truth shows it)
    (
        ("rejection or complaint", "rejections or complaints"),
        lambda t: t.get("act") in ("reject", "complain"),
    ),
    (("question about a film", "questions about a film"), lambda t: t.get("act") == "ask"),
    (("genre change", "genre changes"), lambda t: t.get("shift") and t.get("kind") == "genre"),
    (
        ("decade, person or language wish", "decade, person or language wishes"),
        lambda t: t.get("shift") and t.get("kind") not in (None, "genre"),
    ),
    (("wish taken back", "wishes taken back"), lambda t: t.get("contradiction")),
    (("blend of two genres", "blends of two genres"), lambda t: t.get("blend")),
)


def behaviours_line(config: CardConfig, sessions: dict[str, list[dict]]) -> str:
    """What the simulated users did to your CRS in the sessions the card rests on, from their logged truth:
    how often each behaviour came up and in how many sessions — what a difference can have come from."""
    if "shift" not in sessions:
        return ""
    mine = [r for r in sessions["shift"] if r["model"] == config.system]
    said = []
    for what, shows in TESTED:
        hits = [sum(bool(shows(truth_of(t) or {})) for t in r["turns"]) for r in mine]
        if sum(hits):
            said.append(
                f"{counted(sum(hits), *what)} ({counted(sum(h > 0 for h in hits), 'session')})"
            )
    ends = [r.get("end") for r in mine if r.get("end")]
    left = (
        f"; they left satisfied in {ends.count('satisfied')}, frustrated in {ends.count('frustrated')}"
        if ends
        else ""
    )
    return f"What the simulated users did to {config.system} in {counted(len(mine), 'session')}: {', '.join(said) or 'nothing logged'}{left}"
