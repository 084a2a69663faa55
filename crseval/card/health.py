"""What a card rests on, said on the card: for each CRS of yours, the sessions that failed (with the first
error) and the calls that were retried, read from the card's session parts."""

from __future__ import annotations

from pathlib import Path

from crseval.card.job import CardConfig


def health_lines(config: CardConfig, root: Path) -> list[str]:
    """One line per (your CRS, session part) with failed sessions or retried calls; none when all is well."""
    from crseval.adaptation.scoring import STREAM
    from crseval.runs.store import RunStore

    out = []
    for part in ("shift", "shift-llm"):
        if not (root / part / "records").is_dir():
            continue
        records = RunStore(root / part).records(STREAM)
        for system in (config.system, *config.baselines):
            mine = [r for r in records if r["model"] == system]
            failed = [r for r in mine if r.get("errors")]
            retried = sum(int(r.get("retries", 0)) for r in mine)
            if failed or retried:
                first = f" (first: {failed[0]['errors'][0]})" if failed else ""
                out.append(
                    f"{system}: {len(failed)} of {len(mine)} sessions failed in {part}{first}, left out of "
                    f"its scores; {retried} CRS calls retried"
                )
    return out
