"""crseval reliability — how far can ratings of dialogues be trusted?"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import typer

from crseval.cli.options import FORMAT
from crseval.core.errors import CrsevalError
from crseval.cli.output import Format, emit


def _check_design(
    icc: float | None, icc0: float, alpha: float, power: float, width: float | None = None
) -> None:
    """Out-of-range design numbers as one-line errors in the flags' own terms."""
    for flag, value in (("--alpha", alpha), ("--power", power)):
        if not 0 < value < 1:
            raise CrsevalError(f"{flag} {value:g} must lie strictly between 0 and 1", field=flag)
    if not 0 <= icc0 < 1:
        raise CrsevalError(f"--icc0 {icc0:g} must lie in [0, 1)", field="--icc0")
    if icc is not None and not icc0 < icc < 1:
        raise CrsevalError(
            f"--icc {icc:g} must lie above --icc0 ({icc0:g}) and below 1",
            field="--icc",
            fix="e.g. --icc 0.3 (a single rating's expected ICC)",
        )
    if width is not None and not 0 < width < 2:
        raise CrsevalError(
            f"--width {width:g} must lie strictly between 0 and 2 (an ICC interval's width)",
            field="--width",
        )


def power(
    k: int = typer.Option(..., min=2, help="Raters per item."),
    n: int = typer.Option(..., min=3, help="Number of rated items."),
    icc: Optional[float] = typer.Option(None, help="Assumed true ICC (for power and CI width)."),
    icc0: float = typer.Option(0.0, help="ICC under the null hypothesis."),
    alpha: float = typer.Option(0.05, help="One-sided significance level (Walter et al.)."),
    target_power: float = typer.Option(0.8, "--power", help="Desired power."),
    r: Optional[float] = typer.Option(
        None, help="A correlation to detect with n items (two-sided)."
    ),
    fmt: Format = FORMAT,
) -> None:
    """What a design with k raters and n items can show."""
    from crseval.reliability import power as pw

    _check_design(icc, icc0, alpha, target_power)
    if r is not None and not -1 < r < 1:
        raise CrsevalError(f"--r {r:g} must lie strictly between -1 and 1", field="--r")
    rows = [
        {
            "quantity": "minimum detectable ICC",
            "value": pw.min_detectable_icc(n, k, rho0=icc0, alpha=alpha, power=target_power),
        }
    ]
    if icc is not None:
        rows += [
            {
                "quantity": f"power to detect ICC = {icc:g} vs {icc0:g}",
                "value": pw.power_icc(n, k, icc, rho0=icc0, alpha=alpha),
            },
            {
                "quantity": f"expected 95% CI width at ICC = {icc:g}",
                "value": pw.ci_width(icc, n, k),
            },
        ]
    if r is not None:
        rows += [
            {
                "quantity": f"power to detect r = {r:g}",
                "value": pw.power_correlation(r, n, alpha=alpha),
            },
            {
                "quantity": f"items needed for r = {r:g} at power {target_power:g}",
                "value": float(
                    np.ceil(pw.items_for_correlation(r, alpha=alpha, power=target_power))
                ),
            },
        ]
    emit(pd.DataFrame(rows), fmt, title=f"design: k = {k} raters, n = {n} items")


def plan(
    icc: float = typer.Option(..., help="Expected ICC(1) of a single rating."),
    icc0: float = typer.Option(0.0, help="ICC to beat (null hypothesis)."),
    width: Optional[float] = typer.Option(None, help="Wanted 95% CI width of the ICC."),
    alpha: float = typer.Option(0.05, help="One-sided significance level."),
    target_power: float = typer.Option(0.8, "--power", help="Desired power."),
    max_k: int = typer.Option(10, min=2, help="Largest number of raters per item to list."),
    fmt: Format = FORMAT,
) -> None:
    """How many raters and items do I need? One row per k."""
    import math

    from crseval.reliability import power as pw
    from crseval.reliability.icc import interpret

    _check_design(icc, icc0, alpha, target_power, width)
    rows = []
    for k in range(2, max_k + 1):
        row = {
            "raters per item (k)": k,
            "items to beat ICC0": math.ceil(
                pw.items_needed(icc, k, rho0=icc0, alpha=alpha, power=target_power)
            ),
            "reliability of the mean of k (ICC(1,k))": icc * k / (1 + (k - 1) * icc),
        }
        row["band"] = interpret(row["reliability of the mean of k (ICC(1,k))"])
        if width is not None:
            row[f"items for CI width {width:g}"] = math.ceil(pw.items_for_ci_width(icc, k, width))
        rows.append(row)
    emit(
        pd.DataFrame(rows),
        fmt,
        title=f"plan for ICC = {icc:g} (α = {alpha:g}, power = {target_power:g})",
    )


def extend(app: typer.Typer) -> None:
    """The group's hand-written commands (its job commands come from the declaration)."""
    app.command("power")(power)
    app.command("plan")(plan)
