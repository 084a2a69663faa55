"""``crseval dialogues metrics``: what CRSs recommend inside their dialogues, per turn, dialogue and system.

Titles are grounded in a catalogue (:mod:`crseval.text.titles`); where the dialogues label their
mentions (ReDial ``@id``, INSPIRED), those are used and the matcher's precision on them is reported, so
the numbers on unlabelled dialogues (LLM CRSs, the arena, shift runs) come with a measured matcher.
Where dialogues carry human labels, every metric is correlated with them, per dialogue and per system.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats
from statsmodels.stats.multitest import multipletests

from crseval.core.config import CommaList
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Progress
from crseval.core.output import Output
from crseval.data.any_dialogues import DialogueSource, part_sessions, read_dialogues
from crseval.data.base import ItemCatalog
from crseval.data.catalogs import load_catalog
from crseval.data.catalogue_note import catalogue_line, outside_lines
from crseval.dialogues.matcher_check import matcher_check
from crseval.dialogues.measures import (
    DIALOGUE_METRICS,
    dialogue_table,
    ground,
    popularity,
    system_table,
)
from crseval.runs.context import RunContext
from crseval.stats.correlation import fisher_ci
from crseval.text.titles import TitleMatcher


class DialogueMetricsConfig(BaseModel):
    """Dialogues (+ a catalogue) → beyond-accuracy metrics of what the systems recommend."""

    model_config = ConfigDict(extra="forbid")
    data: CommaList = Field(
        [],
        description="Dialogue sources: ReDial *.jsonl, INSPIRED *.tsv, AB-ReDial, USS-ReDial, "
        "CRSArena-Eval or arena dialogue JSON, a shift run, session logs, or "
        "'sample'; several are read together.",
        json_schema_extra={"argument": True},
    )
    catalog: str = Field(
        "sample",
        description="Catalogue to ground titles in: ReDial movies_id2info.json, the "
        "OpenDialKG KB, MovieLens movies.csv, or 'sample' (the bundled one).",
    )
    mentions: Literal["auto", "labelled", "text"] = Field(
        "auto",
        description="Where titles come from: the dialogues' labelled mentions (ReDial @id, INSPIRED), the "
        "text read by the title matcher, or auto (labelled where a source has them).",
        json_schema_extra={"signed": True},
    )
    popularity: CommaList | None = Field(
        None,
        description="Dialogue sources counted for item popularity (novelty); "
        "default: the evaluated dialogues themselves.",
    )
    embeddings: Literal["minilm", "hashing"] = Field(
        "minilm",
        description="Item-text embeddings for diversity.",
        json_schema_extra={"signed": True},
    )
    min_score: float = Field(
        90,
        ge=50,
        le=100,
        description="Least rapidfuzz ratio for a fuzzy title match.",
        json_schema_extra={"signed": True},
    )


def _labelled(source: DialogueSource, mode: str) -> bool:
    if mode == "labelled" and not source.labelled_mentions:
        raise CrsevalError(
            f"{source.info.name} does not label its mentions",
            field="mentions",
            fix="use --mentions text (or auto)",
        )
    return source.labelled_mentions if mode == "auto" else mode == "labelled"


def _embed_items(turns: pd.DataFrame, items: dict, name: str, progress: Progress):
    """item ids → unit vectors of their texts (title, genres, plot), every recommended item embedded once."""
    from crseval.text.embed import get_embedder

    ids = sorted({i for lst in turns["items"] for i in lst})
    if len(ids) < 2:
        return lambda xs: np.zeros((len(xs), 1))
    texts = [
        f"{items[i].title}. {', '.join(items[i].get('genres') or [])}. {items[i].get('plot') or ''}"
        for i in ids
    ]
    embedder, tick, parts = (
        get_embedder(name),
        progress(f"embedding recommended items ({name})", len(ids)),
        [],
    )
    for k in range(0, len(texts), 256):
        parts.append(np.asarray(embedder.encode(texts[k : k + 256]), dtype=float))
        tick(len(parts[-1]))
    x = np.vstack(parts)
    x /= np.where((n := np.linalg.norm(x, axis=1, keepdims=True)) == 0, 1, n)
    row = {i: k for k, i in enumerate(ids)}
    return lambda xs: x[[row[i] for i in xs]]


def label_correlations(dialogues: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Spearman ρ (Fisher-z CI, Bonett–Wright SE) of each metric with each human label, over dialogues and over
    system means (three systems or more), with Holm-adjusted p-values per level."""
    rows = []
    by_system = dialogues.groupby("system")[[*DIALOGUE_METRICS, *labels]].mean()
    for level, frame in (("dialogue", dialogues), ("system", by_system)):
        for label in labels:
            for metric in DIALOGUE_METRICS:
                ok = frame[[metric, label]].dropna()
                if len(ok) < 3 or ok[metric].nunique() < 2 or ok[label].nunique() < 2:
                    continue
                rho, p = stats.spearmanr(ok[metric], ok[label])
                lo, hi = fisher_ci(float(rho), len(ok), spearman=True)
                rows.append(
                    {
                        "level": level,
                        "aspect": label,
                        "metric": metric,
                        "n": len(ok),
                        "spearman_rho": float(rho),
                        "spearman_rho_lo": lo,
                        "spearman_rho_hi": hi,
                        "p": float(p),
                    }
                )
    out = pd.DataFrame(rows)
    if len(out):  # many metrics × labels: Holm's correction over each level's family of tests
        out["p_holm"] = out.groupby("level")["p"].transform(
            lambda p: multipletests(p, method="holm")[1]
        )
    return out


# the tables the report section shows, in its order (those a run has)
SECTION_TABLES = [
    "dialogue_systems",
    "dialogue_label_correlation",
    "dialogue_matcher",
    "dialogue_metrics",
    "dialogue_turns",
]


def _grounded(sources, matcher: TitleMatcher, config: DialogueMetricsConfig, progress: Progress):
    """(each source's grounding: its turns and the titles named, every system turn with its titles)."""
    tick = progress("grounding titles", sum(len(s) for s in sources))
    grounded = [ground(s, matcher, _labelled(s, config.mentions), tick) for s in sources]
    turns = pd.concat([t for t, _ in grounded], ignore_index=True)
    if turns.empty:
        raise CrsevalError(
            "no system turns in these dialogues: nothing was recommended",
            field="data",
            fix="pass dialogues in which a recommender (system, assistant, agent) speaks",
        )
    return grounded, turns


def _with_labels_and_sessions(
    dialogues: pd.DataFrame, sources: list[DialogueSource], labels: list[str]
) -> pd.DataFrame:
    """The dialogue table with each dialogue's own labels and, for session logs (the unit a manifest pairs
    systems on), its session."""
    if labels:
        lab = pd.DataFrame([{"dialogue": d.id, **d.labels} for s in sources for d in s.dialogues])
        dialogues = dialogues.merge(lab.drop_duplicates("dialogue"), on="dialogue", how="left")
    sessions = {d.id: d.session for s in sources for d in s.dialogues}
    if None not in sessions.values():
        dialogues.insert(2, "session", dialogues["dialogue"].map(sessions))
    return dialogues


def measures(
    sources: list[DialogueSource],
    catalog: ItemCatalog,
    config: DialogueMetricsConfig,
    progress: Progress,
    reference: list[DialogueSource] | None = None,
) -> Output:
    """Ground and measure: every table and the report section (``dialogue_systems``: one row per system).
    ``reference``: the popularity sources already read (default: read from ``config.popularity``, else
    these dialogues)."""
    out = Output()
    matcher = TitleMatcher(catalog.items, config.min_score)
    grounded, turns = _grounded(sources, matcher, config, progress)
    if config.popularity:
        reference = reference or [read_dialogues(p) for p in config.popularity]
        pop = popularity([(s.dialogues, _labelled(s, "auto")) for s in reference], matcher)
    else:
        pop = (sum((named for _, named in grounded), Counter()), sum(len(s) for s in sources))
    dialogues = dialogue_table(
        turns, matcher.items, pop, _embed_items(turns, matcher.items, config.embeddings, progress)
    )
    labels = sorted({k for s in sources for d in s.dialogues for k in d.labels})
    dialogues = _with_labels_and_sessions(dialogues, sources, labels)
    systems = system_table(dialogues, turns, len(catalog))
    shown = turns.assign(
        items=turns["items"].str.join("; "), titles=turns["titles"].str.join("; ")
    ).rename(columns={"items": "item_ids"})
    out.table("dialogue_turns", shown)
    out.table("dialogue_metrics", dialogues)
    out.table("dialogue_systems", systems)
    checks = [
        matcher_check(s, matcher, catalog.info.name == "redial-movies").assign(data=s.info.name)
        for s in sources
        if s.labelled_mentions
    ]
    if checks:
        out.table("dialogue_matcher", pd.concat(checks, ignore_index=True))
    if labels and len(corr := label_correlations(dialogues, labels)):
        out.table("dialogue_label_correlation", corr)
    from crseval.dialogues.plots import plot_systems

    out.figure(
        "dialogue_systems",
        lambda path: plot_systems(systems, path),
        "Per system: out-of-catalogue and repetition rates, genre "
        "diversity and novelty, means over dialogues with 95 % t-intervals",
    )
    out.section(
        "What the systems recommend inside dialogues",
        _note(sources, catalog, config, turns),
        tables=SECTION_TABLES,
        figures=["dialogue_systems"],
    )
    return out


def _note(
    sources: list[DialogueSource],
    catalog: ItemCatalog,
    config: DialogueMetricsConfig,
    turns: pd.DataFrame,
) -> str:
    read = {True: "labelled mentions", False: "titles read from the text"}
    how = ", ".join(
        f"{s.info.name} ({len(s)} dialogues, {read[_labelled(s, config.mentions)]})"
        for s in sources
    )
    return (
        f"{how}; catalogue {catalog.info.name} ({len(catalog)} items). {int(turns['recommendations'].sum())} titles "
        "named in system turns. Every title a system turn names counts as a recommendation; out-of-catalogue = no "
        f"catalogue item matches it (exact title key or rapidfuzz ratio ≥ {config.min_score:g}, year within one). "
        "Novelty: self-information of the item's share of dialogues in "
        f"{'the popularity reference' if config.popularity else 'these dialogues'}. Means over dialogues with 95 % "
        "t-intervals (dialogues are the unit); dialogue_matcher: the matcher's precision on labelled mentions."
    )


def method() -> str:
    """What the tables compute (the matcher's and the diversity's settings are signed from the config)."""
    from crseval.text.titles import YEAR_TOLERANCE

    return (
        f"titles(key+year±{YEAR_TOLERANCE},rapidfuzz-ratio)|novelty(-log2 (df+1)/(N+1))"
        "|diversity(genre-jaccard,cosine)|ci(t,dialogues)"
    )


def run(config: DialogueMetricsConfig, ctx: RunContext) -> Output:
    """The metrics of ``config.data``'s dialogues and, in a card, of the sessions its shift part ran."""
    sources = [read_dialogues(p) for p in config.data]
    sources += [part_sessions(name, result) for name, result in ctx.inputs.items()]
    if not sources:
        raise CrsevalError(
            "no dialogues to measure",
            field="data",
            fix="name a dialogue file or folder (or 'sample')",
        )
    catalog = load_catalog(config.catalog)
    reference = [read_dialogues(p) for p in config.popularity] if config.popularity else None
    data = (
        " + ".join(s.info.signature() for s in sources) + f" | catalog {catalog.info.signature()}"
    )
    if reference:
        data += " | popularity " + " + ".join(s.info.signature() for s in reference)
    out = Output(
        "what the systems recommend inside dialogues",
        signature={"data": data, "metric": {"dialogues": method()}},
    )
    systems = out.add(measures(sources, catalog, config, ctx.progress, reference=reference)).tables[
        "dialogue_systems"
    ]
    cols = [
        "system",
        "dialogues",
        "recommendations",
        "out_of_catalogue_rate",
        "repetition_rate",
        "rejected_repeat_rate",
        "novelty",
        "genre_diversity",
        "embedding_diversity",
        "first_rec_turn",
        "coverage",
    ]
    out.summary = systems[cols].round(3)
    rates = systems[["system", "out_of_catalogue_rate", "recommendations"]].itertuples(index=False)
    out.notes += [
        catalogue_line(catalog.info, len(catalog), "--catalog"),
        *outside_lines(rates, catalog.info, "--catalog"),
    ]
    return out


JOB = JobSpec(
    "dialogues.metrics",
    DialogueMetricsConfig,
    run,
    "runs/dialogue-metrics",
    "Beyond accuracy inside dialogues: ground the titles systems name in a catalogue and report "
    "out-of-catalogue rate, repetition, novelty, diversity, coverage and the first recommending turn.",
    "crseval dialogue metrics",
)
