"""`crseval shift known-groups`: does each adaptation metric rank the CRS that follows the user above CRSs
known not to? The reference CRSs of :mod:`crseval.simulation.references` meet the same simulated users at
several dialogue lengths (one ``shift.run`` part per length); for every metric with a direction and every
(follower, other) pair, the AUC — the chance that a session of the follower scores better, in the metric's
own direction — with a 95 % CI from resampling sessions, and whether the expected ordering held.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from crseval.core.config import split_commas
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec, Part, Progress, Result
from crseval.simulation.references import BEHAVIOUR, NAMES

if TYPE_CHECKING:
    from crseval.runs.store import RunStore

FOLLOWER = "template"
# what a group is known to get wrong; a metric named here is only expected to separate these groups
ONLY = {"follow.hallucination_rate": ("hallucinator",)}
NOT_EXPECTED = (
    "follow.turns_to_follow",
)  # defined only where a CRS followed: no ordering to expect


class KnownGroupsConfig(BaseModel):
    """The reference CRSs on the same simulated users at several lengths."""

    model_config = ConfigDict(extra="forbid")
    sessions: int = Field(100, ge=5, le=100_000, description="Simulated users per CRS and length.")
    lengths: Annotated[list[int], BeforeValidator(split_commas)] = Field(
        [8, 12, 20], min_length=1, description="Dialogue lengths (turns), comma-separated."
    )
    kb: str | None = Field(
        None,
        description="Movie catalogue: an OpenDialKG KB file (empty: the bundled sample catalogue).",
    )
    n_boot: int = Field(1000, ge=100, description="Bootstrap resamples of each AUC's CI.")
    seed: int = Field(0, description="Seed of the simulated users, the CRSs and the resamples.")


def parts(config: KnownGroupsConfig, root: Path) -> list[Part]:
    models = [{"name": n, "kind": "reference", "reference": n} for n in NAMES]
    return [
        Part(
            f"turns-{n}",
            "shift.run",
            {
                "seed": config.seed,
                "sessions": config.sessions,
                "turns": n,
                "kb": config.kb,
                "workers": 2,
                "n_boot": 200,
                "models": models,
                "judge": {"enabled": False},
            },
        )
        for n in dict.fromkeys(config.lengths)
    ]


def pair_table(sessions: pd.DataFrame, turns: int, n_boot: int, seed: int) -> pd.DataFrame:
    """Every directed metric of a run's session table × every expected (follower, other) pair."""
    from crseval.core.registry import get_metric
    from crseval.stats.paired import known_groups_auc, verdict

    rows = []
    ok = sessions[~sessions["failed"].astype(bool)]
    for col in ok.columns:
        try:
            spec = get_metric(col, "shift")
        except CrsevalError:  # a context column (model, session, turns …)
            continue
        if spec.higher_is_better is None or col in NOT_EXPECTED or ok[col].isna().all():
            continue
        good = ok.loc[ok["model"] == FOLLOWER, col]
        for other in ONLY.get(col, [n for n in NAMES if n != FOLLOWER]):
            auc = known_groups_auc(
                good,
                ok.loc[ok["model"] == other, col],
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
                    "verdict": verdict(auc),
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
                "verdict": "passes"
                if held == len(g)
                else "fails"
                if rev
                else "partly"
                if held
                else "does not separate",
            }
        )
    order = {"passes": 0, "partly": 1, "does not separate": 2, "fails": 3}
    return (
        pd.DataFrame(out)
        .sort_values(
            ["verdict", "auc_min"], key=lambda s: s.map(order) if s.name == "verdict" else -s
        )
        .reset_index(drop=True)
    )


def run(config: KnownGroupsConfig, store: RunStore, progress: Progress) -> Result:
    from crseval.card.manifest import execute_parts, part_hashes
    from crseval.card.plots import plot_known_groups
    from crseval.core.signature import make_signature

    tables = []
    manifest = parts(config, store.root)
    for i, (part, _) in enumerate(execute_parts(manifest, store, progress)):
        sessions = pd.read_csv(store.path(part.name, "tables", "shift_sessions.csv"))
        tables.append(pair_table(sessions, part.config["turns"], config.n_boot, config.seed + i))
    pairs = pd.concat(tables, ignore_index=True)
    summ = summary(pairs)
    store.write_table("known_groups", pairs)
    store.write_table("known_groups_summary", summ)
    plot_known_groups(pairs, store.figure_path("known_groups"))
    sig = make_signature(
        data=f"sessions:{config.kb or 'sample'}",
        metric={"known_groups": f"auc(follower={FOLLOWER},ties=half,ci=percentile-bootstrap)"},
        parts=part_hashes(manifest, store),
        seed=config.seed,
        n_boot=config.n_boot,
    )
    store.save_signature(sig)
    groups = "; ".join(f"**{n}** {b}" for n, b in BEHAVIOUR.items())
    store.add_section(
        "Known groups: which metrics separate a CRS that follows the user",
        f"Reference CRSs of known behaviour ({groups}) met the same {config.sessions} simulated users at "
        f"{', '.join(map(str, dict.fromkeys(config.lengths)))} turns. For every metric with a direction "
        f"and every other CRS, the AUC is the chance that a session of {FOLLOWER} scores better, in the "
        "metric's own direction (ties half), with a 95 % percentile bootstrap CI over sessions: held "
        "(CI above .5), reversed (below .5) or not separated. A metric passes when every check held.",
        tables=[
            ("known_groups_summary", "Per metric: checks held, reversed; the smallest AUC"),
            ("known_groups", "Every (metric, length, group) check"),
        ],
        figures=[
            (
                "known_groups",
                f"AUC of {FOLLOWER} against each other CRS (columns) per metric (rows), at each "
                "length; blue: the expected ordering, red: reversed",
            )
        ],
    )
    return Result(
        "shift.known-groups",
        "Known groups: per metric, how often the follower is ranked above CRSs that do not follow",
        summ.drop(columns=["label"]).round(3),
        sig,
        store.root,
    )


JOB = JobSpec(
    "shift.known-groups",
    KnownGroupsConfig,
    run,
    "runs/known-groups",
    "Check every adaptation metric on CRSs of known behaviour (follows the user, ignores the user, "
    "echoes, lags a turn, forgets, hallucinates) at several dialogue lengths.",
    "crseval shift known-groups",
    parts=parts,
)
