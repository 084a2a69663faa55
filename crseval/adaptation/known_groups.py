"""Known groups: does each adaptation metric rank the CRS that follows the user above CRSs known not to?
For every metric with a direction and every (follower, other reference CRS) pair of a run's sessions, the
AUC — the chance that a session of the follower scores better, in the metric's own direction — with a 95 %
CI from resampling sessions, and whether the expected ordering held. ``shift run --known-groups`` adds the
reference CRSs (:mod:`crseval.simulation.references`) to a run and reports this beside its metrics;
``crseval shift known-groups`` repeats it over several dialogue lengths, and the report card measures each
of its rows on the pair it names (:data:`FOLLOWS`, :data:`GROUNDS`). This module owns the groups, their
expected order, the checks and their tables; the AUC is ``crseval/stats/paired.py: known_groups_auc``;
the AUC and the tables are declared in ``crseval/adaptation/metrics.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.output import Output
from crseval.simulation.references import BEHAVIOUR, FOLLOWERS, NAMES
from crseval.stats.paired import MIN_GROUP, TOO_FEW

if TYPE_CHECKING:
    from pathlib import Path

FOLLOWER = "template"
FOLLOWS = (
    FOLLOWER,
    "stubborn",
)  # (expected better, expected worse): follows the user / ignores the user
GROUNDS = (FOLLOWER, "hallucinator")  # names catalogue films / names made-up films
# what a group is known to get wrong; a metric named here is only expected to separate these groups
ONLY = {"follow.hallucination_rate": ("hallucinator",)}
NOT_EXPECTED = (
    "follow.turns_to_follow",
)  # defined only where a CRS followed: no ordering to expect
WORSE = tuple(n for n in NAMES if n not in FOLLOWERS)  # known not to follow the user
GROUPS = (FOLLOWER, *WORSE)  # the reference CRSs a known-groups run holds


def reference_models(present: list[str]) -> list[dict]:
    """The reference CRSs a run lacks, as shift-run models."""
    return [{"name": n, "kind": "reference", "reference": n} for n in GROUPS if n not in present]


def pair_table(sessions: pd.DataFrame, turns: int, n_boot: int, seed: int) -> pd.DataFrame:
    """Every directed metric of a run's session table × every expected (follower, other) pair."""
    from crseval.core.registry import get_metric
    from crseval.stats.paired import known_groups_auc, verdict

    rows = []
    ok = sessions[~sessions["failed"]]
    present = set(ok["system"])
    for col in ok.columns:
        try:
            spec = get_metric(col, "shift")
        except CrsevalError:  # a context column (system, session, turns …)
            continue
        if spec.higher_is_better is None or col in NOT_EXPECTED or ok[col].isna().all():
            continue
        good = ok.loc[ok["system"] == FOLLOWER, col]
        for other in ONLY.get(col, WORSE):
            if other not in present:
                continue
            bad = ok.loc[ok["system"] == other, col]
            auc = known_groups_auc(
                good,
                bad,
                higher_is_better=spec.higher_is_better,
                n_boot=n_boot,
                seed=seed,
            )
            rows.append(
                {
                    "metric": spec.qualified,
                    "label": spec.display,
                    "turns": turns,
                    "better": FOLLOWER,
                    "worse": other,
                    "auc": auc.value,
                    "auc_lo": auc.lo,
                    "auc_hi": auc.hi,
                    "n": auc.n,
                    "verdict": verdict(auc, min(good.notna().sum(), bad.notna().sum())),
                }
            )
    return pd.DataFrame(rows)


def summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per metric: how many of its (group, length) checks held, failed (reversed) or did not separate."""
    out = []
    for metric, g in pairs.groupby("metric", sort=False):
        counts = g["verdict"].value_counts()
        held, rev = int(counts.get("held", 0)), int(counts.get("reversed", 0))
        worst = g.loc[g["auc"].idxmin()] if g["auc"].notna().any() else None
        out.append(
            {
                "metric": metric,
                "label": g["label"].iloc[0],
                "checks": len(g),
                "held": held,
                "reversed": rev,
                "auc_min": float(g["auc"].min()),
                "worst": f"{worst['worse']} at {worst['turns']} turns" if worst is not None else "",
                "verdict": "too few sessions"
                if (g["verdict"] == TOO_FEW).all()
                else "passes"
                if held == len(g)
                else "fails"
                if rev
                else "partly"
                if held
                else "does not separate",
            }
        )
    order = {"passes": 0, "partly": 1, "does not separate": 2, "fails": 3, "too few sessions": 4}
    return (
        pd.DataFrame(out)
        .sort_values(
            ["verdict", "auc_min"], key=lambda s: s.map(order) if s.name == "verdict" else -s
        )
        .reset_index(drop=True)
    )


def plot_known_groups(pairs: pd.DataFrame, path: Path) -> None:
    """A heatmap: metrics (rows) × (other CRS, length) (columns), the AUC of the follower against it."""
    from crseval.plotting import plt, save, style

    style()
    wide = pairs.pivot_table(index="label", columns=["worse", "turns"], values="auc", sort=False)
    fig, ax = plt.subplots(figsize=(1.2 + 0.42 * wide.shape[1], 0.9 + 0.32 * wide.shape[0]))
    im = ax.imshow(wide.to_numpy(float), cmap="RdBu", vmin=0, vmax=1, aspect="auto")
    ax.set_yticks(np.arange(wide.shape[0]), wide.index, fontsize=7)
    ax.set_xticks(
        np.arange(wide.shape[1]), [f"{w} {t}" for w, t in wide.columns], rotation=60, ha="right",
        fontsize=7,
    )  # fmt: skip
    fig.colorbar(im, ax=ax, label="AUC (follower better)", shrink=0.8)
    save(fig, path)


def known_groups_output(pairs: pd.DataFrame, where: str, title: str) -> Output:
    """The checks, their per-metric summary (``known_groups_summary``), the heatmap and the report section.
    ``where``: what the reference CRSs met (users, lengths), in words."""
    out = Output()
    summ = summary(pairs)
    out.table("known_groups", pairs)
    out.table("known_groups_summary", summ)
    out.figure(
        "known_groups",
        lambda path: plot_known_groups(pairs, path),
        f"AUC of {FOLLOWER} against each other CRS (columns) per metric (rows), at each "
        "length; blue: the expected ordering, red: reversed",
    )
    groups = "; ".join(f"**{n}** {b}" for n, b in BEHAVIOUR.items())
    out.section(
        title,
        f"Reference CRSs of known behaviour ({groups}) met {where.rstrip('.')}. For every metric with a direction "
        f"and every other CRS, the AUC is the chance that a session of {FOLLOWER} scores better, in the "
        "metric's own direction (ties half), with a 95 % percentile bootstrap CI over sessions: held "
        "(CI above .5), reversed (below .5) or not separated — or too few, where either CRS has fewer than "
        f"{MIN_GROUP} sessions (no verdict from a CI that rests on nothing). A metric passes when every "
        "check held.",
        tables=["known_groups_summary", "known_groups"],
        figures=["known_groups"],
    )
    return out


def verdict_line(summ: pd.DataFrame) -> str:
    """One line: each metric's known-groups verdict, the headline's evidence in words."""
    return "known groups (this run): " + "; ".join(
        f"{r.label} {r.verdict} ({r.held}/{r.checks} held, smallest AUC {r.auc_min:.2f})"
        for r in summ.itertuples()
    )
