"""`crseval criterion DATA`: do the card's numbers predict what real users felt?

Every card metric that can be read from a dialogue's words — verified following read from the user's
words, TAS, out-of-catalogue, repetition, rejected repeats (and novelty; the judge's aspects with
``--judge``) — measured on real users' dialogues with real CRSs and set against those users' own verdicts
(:mod:`crseval.stats.criterion`): their label per dialogue (CRSArena-Dial: satisfied / frustrated), their
vote per battle, and the arena's published Elo per system.

A manifest like the card's: per catalogue, a ``dialogues.metrics`` part and a ``shift.score`` part of the
dialogues whose CRS was built on it — ``*_redial`` CRSs grounded in ReDial's movies, ``*_opendialkg`` ones
in OpenDialKG's KB (``--catalog redial=…,opendialkg=…``) — so a title is judged against the catalogue its
CRS could name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from crseval.card.criterion_config import CriterionConfig
from crseval.card.criterion_tables import PER_DIALOGUE, criterion_tables, summary
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Part, Progress
from crseval.core.output import Output
from crseval.data.catalogue_map import catalogue_of, catalogues

if TYPE_CHECKING:
    from crseval.runs.context import RunContext


def _arena_files(data: Path) -> list[Path]:
    files = sorted(data.glob("crs_arena_dial_*.json")) if data.is_dir() else [data]
    return [f for f in files if f.suffix == ".json"]


def _split(config: CriterionConfig, ctx: RunContext) -> dict[str, str]:
    """catalogue name → the dialogues its CRSs had: the data itself for one catalogue, else a file of
    them per catalogue under ``inputs/`` (CRSArena-Dial's layout, kept as published)."""
    from crseval.data.io import existing, read_json

    cats, data = catalogues(config.catalog), existing(config.data, "dialogues")
    if list(cats) == [""]:
        return {"": config.data}
    files = [read_json(f) for f in _arena_files(data)]
    raw = [c for f in files if isinstance(f, list) for c in f]
    if not raw or not all(isinstance(c, dict) and "conversation ID" in c for c in raw):
        raise CrsevalError(
            "a catalogue per CRS needs dialogues in CRSArena-Dial's layout",
            file=Path(config.data),
            field="catalog",
            fix="pass one catalogue for every CRS",
        )
    groups: dict[str, list] = {name: [] for name in cats}
    for c in raw:
        system = str((c.get("agent") or {}).get("id") or c["conversation ID"].rsplit("_", 1)[0])
        groups[catalogue_of(system, cats)].append(c)
    out = {}
    for name, convs in groups.items():
        if convs:
            path = ctx.artifact("inputs", f"{name}.json")
            path.write_text(json.dumps(convs, ensure_ascii=False), encoding="utf-8")
            out[name] = str(path)
    return out


def parts(config: CriterionConfig, inputs: dict[str, str]) -> list[Part]:
    cats, out = catalogues(config.catalog), []
    for name, data in inputs.items():
        tag = f"-{name}" if name else ""
        out.append(
            Part(
                f"dialogues{tag}",
                "dialogues.metrics",
                {"data": [data], "catalog": cats[name], "embeddings": "hashing"},
            )
        )
        out.append(
            Part(
                f"shift{tag}",
                "shift.score",
                {
                    "logs": data,
                    "kb": cats[name],
                    "judge": config.judge,
                    "llm": config.llm.model_dump(),
                    "n_boot": 200,
                },
            )
        )
    return out


def run(config: CriterionConfig, ctx: RunContext) -> Output:
    from crseval.card.manifest import Parts

    inputs = _split(config, ctx)
    done = Parts(parts(config, inputs))
    units = {"dialogues": [], "shift": []}
    for part, result in done.run(ctx):
        kind = part.job.split(".")[0]  # dialogues or shift
        units[kind].append(result.tables[PER_DIALOGUE[kind]])
    out = Output(
        "Criterion validity: the card's metrics against real users' own verdicts",
        signature={
            "data": f"{config.data} | votes {config.votes or 'beside'} | elo {config.elo or 'beside'}",
            "metric": {
                "criterion": "C(cluster=user),battles(ties=out,cluster=user),tau-b(strata=system)"
            },
            "parts": done.hashes(),
        },
    )
    table = criterion_tables(out, config, units, _gaps(config, inputs, ctx.progress))
    out.summary = summary(table)
    return out


def _gaps(config: CriterionConfig, inputs: dict[str, str], progress: Progress):
    """What the users asked for that following from the words reads, and what it cannot."""
    from collections import Counter

    from crseval.adaptation.following import Following
    from crseval.adaptation.wish_gaps import gap_table, gaps
    from crseval.data.kb import load_kb
    from crseval.data.session_logs import import_logs

    cats, counts = catalogues(config.catalog), Counter()
    tick = progress("reading the users' requests", len(inputs))
    for name, data in inputs.items():
        sessions = [[t["user"] for t in r["turns"]] for r in import_logs(data)[0]]
        counts += gaps(Following(load_kb(cats[name])), sessions)
        tick(1)
    return gap_table(counts)


JOB = JobSpec(
    "criterion",
    CriterionConfig,
    run,
    "runs/criterion",
    "Check the card's metrics against real users' own verdicts: their label per dialogue (AUC, CI by "
    "user), their vote per battle and the arena's Elo per system (CRSArena-Dial).",
    "crseval criterion",
    uses_llm=lambda c: c.judge,
)
