"""From scored sessions to what a paper needs: per-session and per-turn tables, per-model means with
95 % bootstrap CIs, one-way ANOVA + Tukey HSD across models per metric (statsmodels), Pearson and
Spearman between automatic and judge metrics, figures (bars with CIs, judge radar, correlation
heatmap) and the report section with the drill-down model → sessions → turns.

Sessions whose CRS failed (``errors``) are excluded from the statistics and counted in the report.
"""

from __future__ import annotations

import warnings
from math import comb
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from crseval.adaptation.metrics import COLUMNS, FOLLOWING, Columns
from crseval.adaptation.score import detection_summary
from crseval.plotting import OKABE_ITO, plt, save, style
from crseval.core.output import Output
from crseval.core.registry import label
from crseval.stats.bootstrap import bootstrap_ci
from crseval.stats.correlation import fisher_ci
from crseval.stats.tests import TUKEY_COLUMNS, anova_tukey as anova_test
from crseval.core.types import truth_of


def columns_of(results: Sequence[dict[str, Any]]) -> Columns:
    """The columns of the TAS definition the sessions were scored with."""
    return COLUMNS[results[0]["tas"].get("definition", "crseval") if results else "crseval"]


def session_table(results: Sequence[dict[str, Any]], aspects: Sequence[str]) -> pd.DataFrame:
    cols = columns_of(results)
    rows = []
    for r in results:
        row = {
            "system": r["model"],
            "session": str(r["session"]),
            "user": r.get("user"),
            "turns": len(r["turns"]),
            "true_genre": r.get("true_genre"),
            "failed": bool(r.get("errors")),
            "error": "; ".join(r.get("errors", []))[:300],
        }
        row.update(
            {
                k: r["tas"].get(k, np.nan)
                for k in (
                    *cols.automatic,
                    *cols.extra,
                    "shifts_detected",
                    "shifts_recovered",
                    "true_shifts",
                )
            }
        )
        row.update({k: (r.get("following") or {}).get(k, np.nan) for k in FOLLOWING})
        row.update({a: (r.get("judge") or {}).get(a, np.nan) for a in aspects})
        row["judge_failures"] = r.get("judge_failures", 0)
        rows.append(row)
    df = pd.DataFrame(rows)
    return df.sort_values(
        ["system", "session"],
        key=lambda s: s.map(_natural) if s.name == "session" else s,
        kind="stable",
    ).reset_index(drop=True)


def _natural(v: str):
    return (0, int(v), "") if str(v).isdigit() else (1, 0, str(v))


def turn_parts(results: Sequence[dict[str, Any]], sessions: int = 500):
    """The turn table in parts of ``sessions`` sessions (6,000 sessions × 20 turns held at once would be the
    run's memory peak)."""
    for k in range(0, len(results), sessions):
        yield turn_table(results[k : k + sessions])


def turn_table(results: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per turn; ``event`` names what happened there (true shift, detected shift, recovery)."""
    cols: dict[str, list] = {
        c: []
        for c in (
            "system",
            "session",
            "session_tas",
            "turn",
            "user",
            "reply",
            "event",
            "constraints",
        )
    }
    headline = columns_of(results).headline
    for r in results:
        events = r["tas"].get("events", [])
        recovered_turns = {
            e["recovered_at"]: e["turn"] for e in events if e.get("recovered_at") is not None
        }
        session, tas = str(r["session"]), r["tas"].get(headline)
        for t, e in zip(r["turns"], events):
            truth = truth_of(t) or {}
            marks = []
            if truth.get("shift"):
                marks.append(
                    f"true shift: {truth.get('kind')}"
                    + (" (contradiction)" if truth.get("contradiction") else "")
                )
            if e["detected"]:
                marks.append(
                    f"detected ({e['reason']})"
                    + ("" if e.get("recovered_at") is not None else ", not recovered")
                )
            if t["turn"] in recovered_turns:
                marks.append(f"recovers the shift of turn {recovered_turns[t['turn']]}")
            for c, v in (
                ("system", r["model"]),
                ("session", session),
                ("session_tas", tas),
                ("turn", t["turn"]),
                ("user", t["user"]),
                ("reply", t["system"]),
                ("event", "; ".join(marks)),
                ("constraints", "" if t.get("constraints") is None else str(t["constraints"])),
            ):
                cols[c].append(v)
    return pd.DataFrame(cols)


def model_metrics(
    sessions: pd.DataFrame, metrics: Sequence[str], *, n_boot: int = 2000, seed: int = 0
) -> pd.DataFrame:
    ok = sessions[~sessions["failed"]]
    rows = []
    for model, grp in ok.groupby("system", sort=False):
        for m in metrics:
            est, lo, hi = bootstrap_ci(grp[m].to_numpy(float), n_resamples=n_boot, seed=seed)
            rows.append(
                {
                    "system": model,
                    "metric": m,
                    "mean": est,
                    "ci_lo": lo,
                    "ci_hi": hi,
                    "n": int(np.isfinite(grp[m].to_numpy(float)).sum()),
                }
            )
    return pd.DataFrame(rows)


def anova_tukey(
    sessions: pd.DataFrame, metrics: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One-way ANOVA (F, df, p, η²) and Tukey HSD per metric across models (:func:`crseval.stats.tests.anova_tukey`);
    a metric it cannot test is listed with the reason."""
    ok = sessions[~sessions["failed"]]
    a_rows, t_rows = [], []
    for m in metrics:
        res = anova_test(ok[m].to_numpy(float), ok["system"].to_numpy(str))
        a_rows.append(
            {
                "metric": m,
                "F": res.F,
                "p": res.p,
                "df_between": res.df_between,
                "df_within": res.df_within,
                "eta_squared": res.eta_squared,
                "n": res.n,
                "note": res.note,
            }
        )
        if len(res.tukey):
            t_rows.append(res.tukey.assign(metric=m))
    columns = ["metric", *TUKEY_COLUMNS]
    tukey = (
        pd.concat(t_rows, ignore_index=True)[columns] if t_rows else pd.DataFrame(columns=columns)
    )
    return pd.DataFrame(a_rows), tukey


def correlations(
    sessions: pd.DataFrame, automatic: Sequence[str], judged: Sequence[str]
) -> pd.DataFrame:
    ok = sessions[~sessions["failed"]]
    rows = []
    for a in automatic:
        for j in judged:
            d = ok[[a, j]].dropna()
            if len(d) < 3 or d[a].nunique() < 2 or d[j].nunique() < 2:
                rows.append(
                    {
                        "automatic": a,
                        "judge": j,
                        "n": len(d),
                        "pearson_r": np.nan,
                        "pearson_p": np.nan,
                        "spearman_rho": np.nan,
                        "spearman_p": np.nan,
                    }
                )
                continue
            r, rp = stats.pearsonr(d[a], d[j])
            rho, sp = stats.spearmanr(d[a], d[j])
            rows.append(
                {
                    "automatic": a,
                    "judge": j,
                    "n": len(d),
                    "pearson_r": float(r),
                    "pearson_p": float(rp),
                    "spearman_rho": float(rho),
                    "spearman_p": float(sp),
                }
            )
    return pd.DataFrame(rows)


def following_validity(
    sessions: pd.DataFrame, metrics: Sequence[str], verified: Sequence[str]
) -> pd.DataFrame:
    """Per session: how each adaptation metric and judge aspect tracks what verifiably happened (Pearson with
    a Fisher-z 95 % CI, Spearman), pooled over models."""
    ok = sessions[~sessions["failed"]]
    rows = []
    for m in metrics:
        for v in verified:
            d = ok[[m, v]].dropna()
            usable = len(d) >= 4 and d[m].nunique() > 1 and d[v].nunique() > 1
            # a metric that barely varies: r as computed, no warning
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", stats.NearConstantInputWarning)
                r = float(stats.pearsonr(d[m], d[v])[0]) if usable else np.nan
            lo, hi = fisher_ci(r, len(d))
            rows.append(
                {
                    "metric": m,
                    "verified": v,
                    "n": len(d),
                    "pearson_r": r,
                    "pearson_r_lo": lo,
                    "pearson_r_hi": hi,
                    "spearman_rho": float(stats.spearmanr(d[m], d[v])[0]) if usable else np.nan,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "metric",
            "verified",
            "n",
            "pearson_r",
            "pearson_r_lo",
            "pearson_r_hi",
            "spearman_rho",
        ],
    )


def pass_hat_k(sessions: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """τ-bench's pass^k per model from repeated sessions of each simulated user: per user, the chance that k
    of its n sessions drawn without replacement all succeed, C(c, k) / C(n, k), averaged over users (95 %
    bootstrap CI over users), k = 1 … min(5, n); a session without a shift has nothing to fail."""
    ok = sessions[~sessions["failed"] & sessions["user"].notna()]
    rows = []
    for model, g in ok.groupby("system", sort=False):
        per_user = [u.fillna(1.0).to_numpy() for _, u in g.groupby("user")["follow.success"]]
        n = min((len(u) for u in per_user), default=0)
        for k in range(1, min(5, n) + 1) if n >= 2 else ():
            values = np.array([comb(int(u.sum()), k) / comb(len(u), k) for u in per_user])
            est, lo, hi = bootstrap_ci(values, n_resamples=n_boot, seed=seed)
            rows.append(
                {
                    "system": model,
                    "k_sessions": k,
                    "pass_k": est,
                    "ci_lo": lo,
                    "ci_hi": hi,
                    "users": len(values),
                }
            )
    return pd.DataFrame(rows, columns=["system", "k_sessions", "pass_k", "ci_lo", "ci_hi", "users"])


# ---- figures ----------------------------------------------------------------------------------
def plot_metric_bars(mm: pd.DataFrame, metrics: Sequence[str], path, title: str) -> None:
    style()
    models = list(dict.fromkeys(mm["system"]))
    cols = min(3, len(metrics))
    rows = int(np.ceil(len(metrics) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
    for ax, m in zip(axes.flat, metrics):
        d = mm[mm["metric"] == m].set_index("system").reindex(models)
        v, lo, hi = (d[c].to_numpy(float) for c in ("mean", "ci_lo", "ci_hi"))
        colors = [OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(models))]
        for i in range(len(models)):
            if not np.isfinite(v[i]):  # no value: say so instead of drawing a zero bar
                ax.text(i, 0, "n/a", ha="center", va="bottom", fontsize=8, color="#666666")
                continue
            ci = np.isfinite(lo[i]) and np.isfinite(hi[i])
            ax.bar(
                i,
                v[i],
                color=colors[i],
                yerr=[[max(v[i] - lo[i], 0)], [max(hi[i] - v[i], 0)]] if ci else None,
                capsize=3,
                ecolor="#333333",
            )
        ax.set_xticks(range(len(models)), models, rotation=25, ha="right")
        ax.set_title(label(m, "shift"))
        ax.set_ylabel(
            "score (1–5)"
            if m in ("proactiveness", "coherence", "personalization")
            else "score (0–1)"
        )
    for ax in list(axes.flat)[len(metrics) :]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, path)


def plot_radar(mm: pd.DataFrame, aspects: Sequence[str], path) -> None:
    style()
    angles = np.linspace(0, 2 * np.pi, len(aspects), endpoint=False).tolist()
    fig = plt.figure(figsize=(4.6, 4.2))
    ax = fig.add_subplot(polar=True)
    for i, (model, d) in enumerate(mm[mm["metric"].isin(aspects)].groupby("system", sort=False)):
        v = d.set_index("metric").reindex(aspects)["mean"].to_numpy(float)
        ax.plot(
            angles + angles[:1],
            list(v) + [v[0]],
            color=OKABE_ITO[i % len(OKABE_ITO)],
            label=model,
            marker="o",
        )
        ax.fill(
            angles + angles[:1], list(v) + [v[0]], color=OKABE_ITO[i % len(OKABE_ITO)], alpha=0.12
        )
    ax.set_xticks(angles, list(aspects))
    ax.set_ylim(1, 5)
    ax.set_title("LLM judge (mean, 1–5)")
    ax.legend(loc="upper right", bbox_to_anchor=(1.35, 1.1), fontsize=8)
    save(fig, path)


def plot_heatmap(sessions: pd.DataFrame, metrics: Sequence[str], path) -> None:
    style()
    d = sessions[~sessions["failed"]][list(metrics)].astype(float)
    metrics = [
        m for m in metrics if d[m].nunique() > 1
    ]  # a constant metric has no correlation: no blank row
    d = d[metrics]
    c = d.corr(method="pearson", min_periods=3).to_numpy()
    fig, ax = plt.subplots(figsize=(0.55 * len(metrics) + 2.5, 0.5 * len(metrics) + 1.8))
    im = ax.imshow(c, cmap="RdBu_r", vmin=-1, vmax=1)
    ax.grid(False)
    ax.set_xticks(
        range(len(metrics)), [label(m, "shift") for m in metrics], rotation=40, ha="right"
    )
    ax.set_yticks(range(len(metrics)), [label(m, "shift") for m in metrics])
    for i in range(len(metrics)):
        for j in range(len(metrics)):
            if np.isfinite(c[i, j]):
                ax.text(
                    j,
                    i,
                    f"{c[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if abs(c[i, j]) > 0.6 else "black",
                )
    fig.colorbar(im, ax=ax, label="Pearson r (sessions)")
    ax.set_title("Correlation of session metrics")
    save(fig, path)


def wide_metrics(mm: pd.DataFrame) -> pd.DataFrame:
    """Model × metric, each cell 'mean [low, high]' (the paper table; model_metrics keeps the numbers)."""
    cell = [
        f"{m:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) else "")
        for m, lo, hi in zip(mm["mean"], mm["ci_lo"], mm["ci_hi"])
    ]
    wide = mm.assign(cell=cell).pivot(index="system", columns="metric", values="cell")
    return wide[list(dict.fromkeys(mm["metric"]))].reset_index()


def _figures(
    out: Output,
    mm: pd.DataFrame,
    sessions: pd.DataFrame,
    judged: list[str],
    cols: Columns,
    verified: Sequence[str],
) -> None:
    headline = [
        m for m in ("follow.follow_rate", "follow.satisfaction", "follow.success") if m in verified
    ]
    if "follow.follow_rate" in headline:
        out.figure(
            "shift_following",
            lambda path: plot_metric_bars(
                mm, headline, path, "Verified following per model (95 % CI)"
            ),
            "Verified preference following per model: every recommended title checked in the catalogue "
            "against the user's logged wishes (mean over sessions, 95 % bootstrap CI) — the adaptation "
            "measure that ranks a CRS that follows the user above ones that do not (`crseval shift "
            "known-groups`)",
        )
    out.figure(
        "shift_metrics",
        lambda path: plot_metric_bars(
            mm, cols.automatic, path, "Topic adaptation per model (95 % CI)"
        ),
        "Topic adaptation per model: TAS and its components (mean over sessions, 95 % "
        "bootstrap CI; no bar where a metric is undefined). TAS ranks CRSs that ignore or echo the "
        "user above one that follows them (`crseval shift known-groups`): read it as topical "
        "consistency, not adaptation",
    )
    if judged:
        out.figure(
            "shift_judge",
            lambda path: plot_metric_bars(mm, judged, path, "LLM judge per model (95 % CI)"),
            "The LLM judge's aspects per model (1–5, mean over sessions, 95 % bootstrap CI)",
        )
    if len(judged) >= 3:  # a radar needs at least three axes
        out.figure(
            "shift_radar",
            lambda path: plot_radar(mm, judged, path),
            "The judge's aspects per model on one radar (means)",
        )
    scored = sessions[~sessions["failed"]]
    if len(scored) >= 3 and sum(scored[m].nunique() > 1 for m in [*cols.automatic, *judged]) >= 2:
        out.figure(  # fewer sessions or varying metrics: no correlation to draw
            "shift_correlations",
            lambda path: plot_heatmap(sessions, [*cols.automatic, *judged], path),
            "Pearson correlation of the session metrics across sessions (constant metrics left out)",
        )


def _following_tables(
    sessions: pd.DataFrame, metrics: Sequence[str], verified: Sequence[str], n_boot: int, seed: int
) -> dict[str, pd.DataFrame]:
    """With simulator truth: each metric against the verified measures, and pass^k when users repeat."""
    truth = [v for v in ("follow.follow_rate", "follow.satisfaction") if v in verified]
    if not truth:
        return {}
    tables = {"following_validity": following_validity(sessions, metrics, truth)}
    repeated = pass_hat_k(sessions, n_boot=n_boot, seed=seed)
    return {**tables, "following_pass_k": repeated} if len(repeated) else tables


def _logged_truth(record: dict[str, Any]) -> bool:
    return bool(record["turns"]) and truth_of(record["turns"][0]) is not None


def _following_line(mm: pd.DataFrame, verified: Sequence[str], from_words: bool) -> str:
    """The report's sentence on verified preference following."""
    if "follow.follow_rate" in verified:
        rate = mm[mm["metric"] == "follow.follow_rate"]
        how = (
            "every named title checked in the catalogue against the wishes the users' own words state "
            "(no logged truth: crseval's rule-based reading, which finds the logged shifts of rule-based "
            "users but reads LLM-written users far less reliably — bench/following_from_words.py)"
            if from_words
            else "every named title checked in the catalogue against the user's logged wishes"
        )
        return (
            f"Verified preference following ({how}): follow rate "
            + "; ".join(f"{r.system} {r.mean:.2f}" for r in rate.itertuples())
            + "."
        )
    if verified:
        return (
            "No user wishes to check against: only hallucinated titles and recommendations against the "
            "CRS's own parsed constraints are verified."
        )
    return "No recommendations to verify."


def _retried(results: Sequence[dict[str, Any]]) -> str:
    """ " N CRS calls were retried (model: n, …)." where an HTTP CRS's calls were repeated, else ""."""
    per: dict[str, int] = {}
    for r in results:
        if r.get("retries"):
            per[r["model"]] = per.get(r["model"], 0) + int(r["retries"])
    if not per:
        return ""
    each = ", ".join(f"{m}: {n}" for m, n in per.items())
    return f" {sum(per.values())} CRS calls were retried after a connection error or 5xx ({each})."


def _summary(results, sessions, mm, det, cols, verified, judging: bool) -> list[str]:
    """The report section's paragraphs: sessions and failures, verified following, the headline by model,
    the shift detector against the logged shifts (and, ``judging``, the LLM judge's failures)."""
    failed = int(sessions["failed"].sum())
    judge_failed = int(sessions["judge_failures"].sum())
    tas = mm[mm["metric"] == cols.headline].sort_values("mean", ascending=False)
    lines = [
        f"{len(sessions)} sessions of {sessions['system'].nunique()} models; {failed} failed (CRS errors, "
        "excluded from the statistics, listed in shift_sessions)."
        if failed
        else f"{len(sessions)} sessions of {sessions['system'].nunique()} models, none failed."
        + _retried(results),
        _following_line(mm, verified, from_words=not any(_logged_truth(r) for r in results)),
        f"{label(cols.headline, 'shift')} by model (it ranks CRSs that ignore or echo the user above one "
        "that follows them — `crseval shift known-groups` —, so read it as topical consistency, not "
        "adaptation): "
        + "; ".join(
            f"{r.system} {r.mean:.3f} "
            + (f"[{r.ci_lo:.3f}, {r.ci_hi:.3f}]" if np.isfinite(r.ci_lo) else "(no CI)")
            for r in tas.itertuples()
        )
        + "."
        + (
            " No CI where a model has fewer than 3 sessions or no variation."
            if tas["ci_lo"].isna().any()
            else ""
        ),
        "Shift detector against the simulator's logged shifts: "
        + "; ".join(
            f"{r.system} precision {r.precision:.2f}, recall {r.recall:.2f}"
            for r in det.itertuples()
            if np.isfinite(r.precision) or np.isfinite(r.recall)
        )
        + "."
        if det["true"].sum()
        else "No simulator ground truth (imported logs): detection precision/recall not available.",
        "Drill down: model_metrics → shift_sessions (one row per session) → the turns of each session below, "
        "with true shifts, detected shifts and recoveries highlighted.",
    ]
    if judging:
        lines.insert(
            1,
            f"LLM judge: {judge_failed} ratings could not be "
            "obtained (retries exhausted or unparseable; recorded per item in records/shift_judgments.jsonl, "
            "left out of the means)."
            if judge_failed
            else "LLM judge: every rating was obtained.",
        )
    return lines


# the tables the report section shows, in its order
SECTION_TABLES = [
    "model_metrics_wide",
    "anova",
    "tukey",
    "shift_detection",
    "metric_correlations",
    "following_validity",
    "following_pass_k",
    "shift_sessions",
]


def _metric_order(
    sessions: pd.DataFrame, cols, verified: list[str], judged: list[str]
) -> list[str]:
    """The metrics of ``model_metrics`` in order: verified following leads where it is measured against the
    simulator's logged truth (known groups), after the automatic ones where it is read from words."""
    truth = "follow.follow_rate" in verified  # the simulator logged what the user wanted
    return [
        *(verified if truth else []),
        *cols.automatic,
        *[m for m in cols.extra if sessions[m].notna().any()],
        *([] if truth else verified),
        *judged,
    ]


def analysis(
    results: Sequence[dict[str, Any]],
    aspects: Sequence[str],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    notes: Sequence[str] = (),
) -> Output:
    """Every table and figure of a preference-shift run and its report section."""
    out = Output()
    cols = columns_of(results)
    sessions = session_table(results, aspects)
    judged = [a for a in aspects if sessions[a].notna().any()]
    verified = [m for m in FOLLOWING if sessions[m].notna().any()]
    mm = model_metrics(
        sessions, _metric_order(sessions, cols, verified, judged), n_boot=n_boot, seed=seed
    )
    anova, tukey = anova_tukey(sessions, [*cols.automatic, *verified, *judged])
    out.table("shift_turns", turn_parts(results))  # written part by part
    det = pd.DataFrame(
        [
            {"system": m, **detection_summary([r for r in results if r["model"] == m])}
            for m in dict.fromkeys(r["model"] for r in results)
        ]
    )
    tables = {
        "model_metrics": mm,
        "anova": anova,
        "tukey": tukey,
        "shift_sessions": sessions,
        "shift_detection": det,
    }
    if judged:
        tables["metric_correlations"] = correlations(sessions, cols.automatic, judged)
    tables.update(_following_tables(sessions, [*cols.automatic, *judged], verified, n_boot, seed))
    tables["model_metrics_wide"] = wide_metrics(mm)
    out.tables.update(tables)
    _figures(out, mm, sessions, judged, cols, verified)
    lines = [*_summary(results, sessions, mm, det, cols, verified, bool(aspects)), *notes]
    out.section(
        "Preference-shift adaptation",
        "\n\n".join(lines),
        tables=SECTION_TABLES,
        figures=list(out.figures),
        drill={
            "table": "shift_turns",
            "levels": ["system", "session"],
            "value": "session_tas",
            "highlight": "event",
        },
    )
    return out
