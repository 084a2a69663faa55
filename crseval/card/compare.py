"""Two report cards side by side: `crseval compare runs/card-v1 runs/card-v2` pairs the two CRSs on the units
the cards share (the same seeds give the same simulated users; the same dialogue contexts) and compares
every card metric — one named system of each card, never a pool of a card's systems."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from crseval.card.config import CardConfig
from crseval.card.rows import rows
from crseval.card.scores import part_of, units
from crseval.core.errors import CrsevalError
from crseval.core.registry import get_metric
from crseval.stats.paired import paired_difference

SAME = (
    "seed",
    "sessions",
    "turns",
    "kb",
    "data",
)  # what makes two cards' units the same users and contexts


def is_card(run: Path) -> bool:
    return (run / "tables" / "card_scores.csv").is_file()


def _config(run: Path) -> CardConfig:
    import json

    return CardConfig.model_validate(
        json.loads((run / "config.json").read_text(encoding="utf-8"))["config"]
    )


def compare_cards(
    a: Path, b: Path, systems: list[str] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Per card metric: system A (of card ``a``; default its CRS) and system B (of ``b``), their scores and
    B − A paired on shared units (95 % CI, paired permutation p, Holm over the card's metrics), each score
    on those units; notes naming the family Holm adjusts over and what differs between the two cards' set-ups."""
    from statsmodels.stats.multitest import multipletests

    ca, cb = _config(a), _config(b)
    sa, sb = systems or [ca.system, cb.system]
    for run, config, system in ((a, ca, sa), (b, cb, sb)):
        have = [config.system, *config.references]
        if system not in have:
            raise CrsevalError(
                f"{system!r} is not on the card {run}", field="--systems", expected=", ".join(have)
            )
    notes = [
        f"the cards differ in {k}: {getattr(ca, k)} against {getattr(cb, k)} — units are paired on "
        "ids only, not on the same users"
        for k in SAME
        if getattr(ca, k) != getattr(cb, k)
    ]
    out, read_a, read_b = [], _reader(a), _reader(b)
    for i, row in enumerate(rows(ca.with_llm and cb.with_llm)):
        spec = get_metric(row.metric, row.capability)
        ua = units(read_a, row, part_of(row, sa), sa)
        ub = units(read_b, row, part_of(row, sb), sb)
        both = ua.merge(ub, on="unit", suffixes=("_a", "_b"))
        d = paired_difference(
            both["total_b"], both["total_a"], both["weight_b"], both["weight_a"],
            n_boot=ca.n_boot, seed=ca.seed + i,
        )  # fmt: skip
        # each system's score on the units both have, so that the two scores and their difference agree
        on = both[np.isfinite(both.filter(regex="^(total|weight)_").to_numpy(float)).all(1)]
        on = on[(on["weight_a"] > 0) & (on["weight_b"] > 0)]
        ma, mb = (
            on[f"total_{k}"].sum() / on[f"weight_{k}"].sum() if len(on) else np.nan for k in "ab"
        )
        out.append(
            {
                "metric": spec.qualified, "label": spec.display, "system_a": sa, "system_b": sb,
                "mean_a": ma, "mean_b": mb, "diff": d.diff, "diff_lo": d.lo, "diff_hi": d.hi,
                "p": d.p, "n": d.n,
            }
        )  # fmt: skip
    table = pd.DataFrame(out)
    ok = np.isfinite(table["p"].to_numpy(float))
    table["p_holm"] = np.nan
    if ok.any():
        table.loc[ok, "p_holm"] = multipletests(table.loc[ok, "p"], method="holm")[1]
    notes.append(
        f"p is Holm-adjusted over the {int(ok.sum())} card metrics compared here (one family: this "
        "comparison); a card's stars adjust over each metric's comparisons with its references, so the "
        "two can differ"
    )
    return table, notes


def _reader(card: Path):
    """(part, table) → a finished card's part table, each run directory opened once."""
    from crseval.runs.view import load_run

    runs = cache(lambda part: load_run(card.joinpath(*part.split("/"))))
    return lambda part, name: runs(part).tables[name]
