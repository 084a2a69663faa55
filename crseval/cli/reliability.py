"""crseval reliability — how far can ratings of dialogues be trusted?"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import click
import numpy as np
import pandas as pd
import typer
from typer.core import TyperGroup

from crseval.cli.output import Format, console, emit, markdown_table
from crseval.core.errors import CrsevalError


class DefaultAnalyze(TyperGroup):
    """`crseval reliability RATINGS …` runs `analyze`; `power` and `plan` are subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["analyze", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=DefaultAnalyze, no_args_is_help=True,
                  help="Reliability of human or LLM ratings: ICC, crossed REML, Krippendorff's alpha, power, "
                       "structure. `crseval reliability RATINGS --item-col … --rater-col …` analyses a file.")

PRESETS = ("crs-que", "ab-redial", "ab-redial-turns", "uss-redial")


def _load(path: Path, preset: Optional[str], item_col: Optional[str], rater_col: Optional[str],
          dims: Optional[str], dimension_col: Optional[str], value_col: Optional[str], scale: str):
    from crseval.data import load_dataset
    from crseval.data.ratings import load_ratings
    if preset:
        if preset not in PRESETS:
            raise CrsevalError(f"unknown preset {preset!r}", field="--preset", expected="one of " + ", ".join(PRESETS))
        return load_dataset(preset, path)
    if not item_col:
        raise CrsevalError("--item-col is required without --preset", field="--item-col",
                           fix=f"name the item column, or use --preset ({', '.join(PRESETS)})")
    try:
        lo, hi = (float(x) for x in scale.split(","))
    except ValueError:
        raise CrsevalError(f"--scale {scale!r} is not 'low,high'", field="--scale", expected="e.g. 1,5") from None
    return load_ratings(path, item_col=item_col, rater_col=rater_col,
                        dims=[d.strip() for d in dims.split(",")] if dims and not dimension_col else None,
                        dimension_col=dimension_col, value_col=value_col, scale=(lo, hi), name=path.stem)


@app.command()
def analyze(
    ratings: Path = typer.Argument(..., help="Ratings CSV (wide: one column per dimension; or long)."),
    preset: Optional[str] = typer.Option(None, help="Named layout: " + ", ".join(PRESETS) + "."),
    item_col: Optional[str] = typer.Option(None, help="Column with the rated item (dialogue) id."),
    rater_col: Optional[str] = typer.Option(None, help="Column with the rater id (omit for anonymous raters)."),
    dims: Optional[str] = typer.Option(None, help="Comma-separated dimensions (default: all)."),
    dimension_col: Optional[str] = typer.Option(None, help="Long format: the dimension column."),
    value_col: Optional[str] = typer.Option(None, help="Long format: the value column."),
    scale: str = typer.Option("1,5", help="Rating scale 'low,high'."),
    gold: Optional[str] = typer.Option(None, help="Comma-separated gold (known-bad) items to exclude and check."),
    time_col: Optional[str] = typer.Option(None, help="Column with seconds spent per rating."),
    min_seconds: Optional[float] = typer.Option(None, help="Flag raters whose median time is below this."),
    attention_col: Optional[str] = typer.Option(None, help="Column with attention-check results."),
    drop_flagged: bool = typer.Option(False, help="Remove flagged raters (default: flag only)."),
    n_boot: int = typer.Option(200, help="Parametric bootstrap resamples for CIs (0: none)."),
    clusters: int = typer.Option(3, help="Number of dimension clusters to report."),
    seed: int = typer.Option(0, help="Random seed of the bootstraps."),
    out: Optional[Path] = typer.Option(None, help="Run directory (default runs/reliability-NAME)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format of the printed table."),
) -> None:
    """Per-dimension table sorted by Rel_k: n items, n raters, k, ICC(1), ICC(1,k), Rel_single, Rel_k,
    alpha (ordinal), Koo & Li interpretation; writes CSV/Parquet/LaTeX/Markdown, figures and a report."""
    from crseval.cli.progress import progress_bars
    from crseval.core.signature import format_signature
    from crseval.reliability.analysis import MAIN_COLUMNS, analyze as run
    from crseval.report import write_report
    if preset == "crs-que" and time_col is None:
        time_col = "time_spent"
    r = _load(ratings, preset, item_col, rater_col, dims, dimension_col, value_col, scale)
    extra_cols = {c for c in (time_col, attention_col) if c}
    if extra_cols and (r.extra is None or not extra_cols <= set(r.extra.columns)):
        raise CrsevalError(f"columns {sorted(extra_cols)} are not available for QC", field="--time-col",
                           fix="quality-control columns come with presets (crs-que: time_spent)")
    out = out or Path("runs") / f"reliability-{preset or ratings.stem}"
    with progress_bars() as bars:
        table = run(r, out, dims=[d.strip() for d in dims.split(",")] if dims else None, n_boot=n_boot, seed=seed,
                    gold_items=[g.strip() for g in gold.split(",")] if gold else None, time_col=time_col,
                    min_seconds=min_seconds, attention_col=attention_col, drop_flagged=drop_flagged,
                    n_clusters=clusters, progress=bars)
    main = table[MAIN_COLUMNS].round(3)
    tables = Path(out) / "tables"
    (tables / "reliability.md").write_text(markdown_table(main) + "\n", encoding="utf-8")
    (tables / "reliability.tex").write_text(main.to_latex(index=False, float_format="%.3f", escape=True),
                                            encoding="utf-8")
    report = write_report(out, "crseval reliability")
    import json
    sig = json.loads((Path(out) / "signature.json").read_text())
    emit(main, fmt, title="reliability (sorted by Rel_k)", signature=format_signature(
        {k: v for k, v in sig.items() if k != "line"}))
    if fmt is Format.table:
        console.print(f"report: [bold]{report}[/bold]")


@app.command()
def power(
    k: int = typer.Option(..., help="Raters per item."),
    n: int = typer.Option(..., help="Number of rated items."),
    icc: Optional[float] = typer.Option(None, help="Assumed true ICC (for power and CI width)."),
    icc0: float = typer.Option(0.0, help="ICC under the null hypothesis."),
    alpha: float = typer.Option(0.05, help="One-sided significance level (Walter et al.)."),
    target_power: float = typer.Option(0.8, "--power", help="Desired power."),
    r: Optional[float] = typer.Option(None, help="A correlation to detect with n items (two-sided)."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """What a design with k raters and n items can show."""
    from crseval.reliability import power as pw
    rows = [{"quantity": "minimum detectable ICC", "value": pw.min_detectable_icc(n, k, rho0=icc0, alpha=alpha,
                                                                                    power=target_power)}]
    if icc is not None:
        rows += [{"quantity": f"power to detect ICC = {icc:g} vs {icc0:g}", "value": pw.power_icc(n, k, icc, rho0=icc0,
                                                                                                    alpha=alpha)},
                 {"quantity": f"expected 95% CI width at ICC = {icc:g}", "value": pw.ci_width(icc, n, k)}]
    if r is not None:
        rows += [{"quantity": f"power to detect r = {r:g}", "value": pw.power_correlation(r, n, alpha=alpha)},
                 {"quantity": f"items needed for r = {r:g} at power {target_power:g}",
                  "value": float(np.ceil(pw.items_for_correlation(r, alpha=alpha, power=target_power)))}]
    emit(pd.DataFrame(rows), fmt, title=f"design: k = {k} raters, n = {n} items")


@app.command()
def plan(
    icc: float = typer.Option(..., help="Expected ICC(1) of a single rating."),
    icc0: float = typer.Option(0.0, help="ICC to beat (null hypothesis)."),
    width: Optional[float] = typer.Option(None, help="Wanted 95% CI width of the ICC."),
    alpha: float = typer.Option(0.05, help="One-sided significance level."),
    target_power: float = typer.Option(0.8, "--power", help="Desired power."),
    max_k: int = typer.Option(10, help="Largest number of raters per item to list."),
    fmt: Format = typer.Option(Format.table, "--format", help="Output format."),
) -> None:
    """How many raters and items do I need? One row per k."""
    import math

    from crseval.reliability import power as pw
    from crseval.reliability.icc import interpret
    rows = []
    for k in range(2, max_k + 1):
        row = {"raters per item (k)": k,
               "items to beat ICC0": math.ceil(pw.items_needed(icc, k, rho0=icc0, alpha=alpha, power=target_power)),
               "reliability of the mean of k (ICC(1,k))": icc * k / (1 + (k - 1) * icc)}
        row["band"] = interpret(row["reliability of the mean of k (ICC(1,k))"])
        if width:
            row[f"items for CI width {width:g}"] = math.ceil(pw.items_for_ci_width(icc, k, width))
        rows.append(row)
    emit(pd.DataFrame(rows), fmt, title=f"plan for ICC = {icc:g} (α = {alpha:g}, power = {target_power:g})")
