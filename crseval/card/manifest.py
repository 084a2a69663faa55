"""A job built from others, as it ran: its parts in order and each part's result. The runner runs the parts
(:meth:`crseval.runs.context.RunContext.run_parts`, :func:`crseval.api.run_parts`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from crseval.core.job import Part, Result

if TYPE_CHECKING:
    import pandas as pd

    from crseval.runs.context import RunContext


@dataclass
class Parts:
    """A manifest that ran: its parts in order, each part's result by name, what failed."""

    manifest: list[Part]
    results: dict[str, Result] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def run(self, ctx: RunContext) -> Iterator[tuple[Part, Result]]:
        """Run the manifest part by part (the runner's), keeping each result and what failed."""
        for part, result in ctx.run_parts(self.manifest):
            self.results[part.name] = result
            if result.failures:
                self.failures.append(f"{part.name}: {result.failures}")
            yield part, result

    def table(self, part: str, name: str) -> pd.DataFrame:
        """A part's table, as its run wrote it (each read once)."""
        return self.results[part].tables[name]

    def hashes(self) -> dict[str, str]:
        """Each part's signature, hashed: a composite's signature names exactly the parts it read."""
        from crseval.core.signature import content_hash, stable_json

        return {
            n: content_hash(stable_json(r.signature).encode(), 8) for n, r in self.results.items()
        }
