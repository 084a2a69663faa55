"""Running a job built from others: each (job, config) of its manifest into its own run directory under
the job's, through :func:`crseval.api.execute` (so each part resumes by itself and keeps its own report),
with the part's name before every progress line. The embedded model stays loaded from the first part that
uses it to the last (:func:`crseval.llm.llamacpp.held`): a manifest loads it once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from crseval.core.job import Part, Progress, Result

if TYPE_CHECKING:
    import pandas as pd

    from crseval.runs.job_store import JobStore


def execute_parts(
    manifest: list[Part], store: JobStore, progress: Progress
) -> Iterator[tuple[Part, Result]]:
    """Run each part in turn, yielding it with its result as soon as it is done. A part whose input is
    another part that has since run again (``--retry-failed``) is computed again from it."""
    import shutil

    from crseval.api import execute, get_job
    from crseval.core.config import validate
    from crseval.llm.llamacpp import held
    from crseval.runs.provenance import provenance
    from crseval.runs.revisions import derived_and_stale

    with held():
        for part in manifest:
            job = get_job(part.job)
            config, folder = validate(job.config, part.config), store.path(*part.name.split("/"))
            if derived_and_stale(folder, provenance(job.name, config), store.path()):
                store.log(f"NOTE {part.name}: the part it reads ran again; computed again from it")
                shutil.rmtree(folder)
            yield (
                part,
                execute(
                    job,
                    config,
                    folder,
                    lambda title, total, name=part.name: progress(f"{name}: {title}", total),
                ),
            )


@dataclass
class Parts:
    """A manifest that ran: its parts in order, each part's result by name, what failed."""

    manifest: list[Part]
    results: dict[str, Result] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def run(self, store: JobStore, progress: Progress) -> Iterator[tuple[Part, Result]]:
        """Run the manifest part by part (:func:`execute_parts`), keeping each result and what failed."""
        for part, result in execute_parts(self.manifest, store, progress):
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
