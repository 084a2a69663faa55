"""The reliability job: ratings (a preset or any long/wide CSV) → QC → per-dimension table (ICC, crossed
REML, α, bands) → structure → power, with figures, Markdown/LaTeX tables and a report section."""

from __future__ import annotations

from pathlib import Path

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crseval.core.config import CommaList
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.core.types import Ratings
from crseval.core.registry import shown_columns
from crseval.data import load_dataset, names_of
from crseval.runs.context import RunContext

PRESETS = names_of("ratings")


class ReliabilityConfig(BaseModel):
    """How far can ratings of dialogues be trusted?"""

    model_config = ConfigDict(extra="forbid")
    ratings: Path = Field(
        ...,
        description="Ratings CSV (wide: one column per dimension; or long), or a preset's "
        "file/folder.",
        json_schema_extra={"argument": True},
    )
    preset: str | None = Field(None, description="Named layout: " + ", ".join(PRESETS) + ".")
    item_col: str | None = Field(None, description="Column with the rated item (dialogue) id.")
    rater_col: str | None = Field(
        None, description="Column with the rater id (omit for anonymous raters)."
    )
    dims: CommaList | None = Field(None, description="Comma-separated dimensions (default: all).")
    dimension_col: str | None = Field(None, description="Long format: the dimension column.")
    value_col: str | None = Field(None, description="Long format: the value column.")
    scale: str = Field("1,5", description="Rating scale 'low,high'.")
    gold: CommaList | None = Field(
        None, description="Comma-separated gold (known-bad) items to exclude and check."
    )
    time_col: str | None = Field(
        None, description="Column with seconds spent per rating (crs-que: time_spent)."
    )
    min_seconds: float | None = Field(
        None, description="Flag raters whose median time is below this."
    )
    attention_col: str | None = Field(None, description="Column with attention-check results.")
    drop_flagged: bool = Field(
        False,
        description="Remove flagged raters (default: flag only).",
        json_schema_extra={"signed": True},
    )
    ci: Literal["profile", "bootstrap", "none"] = Field(
        "profile",
        description="Confidence intervals: profile (profile likelihood for Rel_single and Rel_k, item "
        "bootstrap for alpha; seconds), bootstrap (parametric bootstrap refits, variance "
        "components too; minutes) or none.",
        json_schema_extra={"signed": True},
    )
    n_boot: int = Field(
        200,
        ge=0,
        description="Bootstrap resamples (alpha; every interval with --ci bootstrap; "
        "0: no bootstrap intervals).",
        json_schema_extra={"signed": True},
    )
    clusters: int = Field(3, ge=1, description="Number of dimension clusters to report.")
    seed: int = Field(
        0, description="Random seed of the bootstraps.", json_schema_extra={"signed": True}
    )

    @field_validator("preset")
    @classmethod
    def _known(cls, v: str | None) -> str | None:
        if v is not None and v not in PRESETS:
            raise ValueError(f"unknown preset {v!r}; one of {', '.join(PRESETS)}")
        return v

    def scale_bounds(self) -> tuple[float, float]:
        try:
            lo, hi = (float(x) for x in self.scale.split(","))
        except ValueError:
            raise CrsevalError(
                f"--scale {self.scale!r} is not 'low,high'", field="--scale", expected="e.g. 1,5"
            ) from None
        return lo, hi


def default_out(config: ReliabilityConfig) -> Path:
    return Path("runs") / f"reliability-{config.preset or config.ratings.stem}"


def load(config: ReliabilityConfig) -> Ratings:
    from crseval.data.ratings import load_ratings

    if config.preset:
        return load_dataset(config.preset, config.ratings)
    if not config.item_col:
        raise CrsevalError(
            "--item-col is required without --preset",
            field="--item-col",
            fix=f"name the item column, or use --preset ({', '.join(PRESETS)})",
        )
    return load_ratings(
        config.ratings,
        item_col=config.item_col,
        rater_col=config.rater_col,
        dims=config.dims if not config.dimension_col else None,
        long=(config.dimension_col, config.value_col),
        scale=config.scale_bounds(),
        name=config.ratings.stem,
    )


def run(config: ReliabilityConfig, ctx: RunContext) -> Output:
    from crseval.reliability.analysis import METHOD, analyze
    from crseval.reliability.qc import quality_control

    time_col = config.time_col or ("time_spent" if config.preset == "crs-que" else None)
    ratings = load(config)
    extra_cols = {c for c in (time_col, config.attention_col) if c}
    if extra_cols and (ratings.extra is None or not extra_cols <= set(ratings.extra.columns)):
        raise CrsevalError(
            f"columns {sorted(extra_cols)} are not available for QC",
            field="--time-col",
            fix="quality-control columns come with presets (crs-que: time_spent)",
        )
    out = Output(
        "reliability (sorted by Rel_k)",
        signature={
            "data": ratings.info.signature() if ratings.info else ratings.name,
            "metric": {"reliability": METHOD},
        },
        notes=list(ratings.info.notes) if ratings.info else [],
    )
    qc = quality_control(
        ratings,
        gold_items=config.gold,
        time_col=time_col,
        min_seconds=config.min_seconds,
        attention_col=config.attention_col,
        drop_flagged=config.drop_flagged,
    )
    part = analyze(
        qc,
        dims=config.dims,
        ci=config.ci,
        n_boot=config.n_boot,
        seed=config.seed,
        n_clusters=config.clusters,
        progress=ctx.progress,
    )
    table = out.add(part).tables["reliability"]
    out.summary = out.paper["reliability"] = table[
        shown_columns("reliability", table.columns)
    ].round(3)
    return out


JOB = JobSpec(
    "reliability",
    ReliabilityConfig,
    run,
    default_out,
    "Per-dimension table sorted by Rel_k: n items, n raters, k, ICC(1), ICC(1,k), Rel_single, Rel_k, "
    "alpha (ordinal), Koo & Li interpretation; writes CSV/Parquet/LaTeX/Markdown, figures and a report.",
    "crseval reliability",
)
