"""What an original study publishes beside its session logs, read and checked:

* ``<model>_judge_scores.csv`` — its LLM judge's scores per session (columns named after the judge
  aspects — proactiveness, coherence, personalization — in any case, plus an optional id column), or the
  same scores inside each log (``"judge_scores": {aspect: score}``). Every score is range-checked against
  the judge's scale: out-of-scale rows are listed with file and line and, by ``policy``, kept (``report``,
  the default: the published analysis used them), dropped, or refused. Then one-way ANOVA across models
  per aspect (F, df, p, η²) and Tukey HSD.
* ``model_metrics.csv`` — its per-model means. Each metric column that names a registered metric is set
  against what crseval reproduces from the same logs (absolute difference per model).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Sequence

import pandas as pd

from crseval.adaptation.metrics import THESIS
from crseval.core.errors import CrsevalError
from crseval.core.output import Output
from crseval.core.registry import all_metrics
from crseval.data.io import read_rows, to_float
from crseval.stats.tests import TUKEY_COLUMNS, anova_tukey

ASPECTS = ("proactiveness", "coherence", "personalization")
ID_COLUMNS = (
    "session",
    "session_id",
    "conversation_id",
    "conversation",
    "id",
    "file",
    "log",
    "filename",
)
Policy = Literal["report", "drop", "refuse"]
SUFFIX = "_judge_scores.csv"


def _norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def judge_score_files(logs: Path) -> list[Path]:
    folder = logs if logs.is_dir() else logs.parent
    return sorted(folder.glob(f"*{SUFFIX}"))


def read_judge_scores(files: Sequence[Path], scale: tuple[float, float] = (1, 5)) -> pd.DataFrame:
    """Long table: system, file, line, session, aspect, score, in_scale."""
    rows = []
    for f in files:
        model = f.name[: -len(SUFFIX)]
        header, it = read_rows(f)
        cols = {_norm(c): c for c in header}
        aspects = [a for a in ASPECTS if a in cols]
        if not aspects:
            raise CrsevalError(
                "no judge aspect column", file=f, line=1, expected="columns " + ", ".join(ASPECTS)
            )
        id_col = next((cols[c] for c in ID_COLUMNS if c in cols), None)
        for line, r in it:
            for a in aspects:
                v = to_float(r[cols[a]], file=f, line=line, field=cols[a], allow_empty=True)
                if v is not None:
                    rows.append(
                        {
                            "system": model,
                            "file": f.name,
                            "line": line,
                            "session": r[id_col] if id_col else str(line),
                            "aspect": a,
                            "score": v,
                            "in_scale": scale[0] <= v <= scale[1],
                        }
                    )
    return pd.DataFrame(
        rows, columns=["system", "file", "line", "session", "aspect", "score", "in_scale"]
    )


def judge_scores_from_logs(
    sessions: Sequence[dict[str, Any]], scale: tuple[float, float] = (1, 5)
) -> pd.DataFrame:
    rows = [
        {
            "system": s["model"],
            "file": s.get("source", ""),
            "line": None,
            "session": str(s["session"]),
            "aspect": a,
            "score": float(v),
            "in_scale": scale[0] <= float(v) <= scale[1],
        }
        for s in sessions
        for a, v in (s.get("judge_scores") or {}).items()
    ]
    return pd.DataFrame(
        rows, columns=["system", "file", "line", "session", "aspect", "score", "in_scale"]
    )


def apply_policy(
    scores: pd.DataFrame, policy: Policy, scale: tuple[float, float]
) -> tuple[pd.DataFrame, list[str]]:
    """(scores to analyse, notes naming every out-of-scale score by file and line)."""
    inside = scores["in_scale"].astype(bool)
    bad = scores[~inside]
    if bad.empty:
        return scores, []
    where = [
        f"{r.file}:{r.line} {r.aspect}={r.score:g}"
        if r.line
        else f"{r.system}/{r.session} {r.aspect}={r.score:g}"
        for r in bad.itertuples()
    ]
    if policy == "refuse":
        first = bad.iloc[0]
        raise CrsevalError(
            f"judge score {first['score']:g} is outside the scale ({len(bad)} such scores)",
            file=first["file"] or None,
            line=first["line"],
            field=first["aspect"],
            expected=f"values in [{scale[0]:g}, {scale[1]:g}]",
            fix="--out-of-scale report keeps and lists them, drop leaves them out",
        )
    kept = scores[inside] if policy == "drop" else scores
    verb = "left out" if policy == "drop" else "kept (as the published analysis did) and listed"
    counts = bad.groupby("aspect").size().to_dict()
    return kept, [
        f"{len(bad)} judge scores outside [{scale[0]:g}, {scale[1]:g}] were {verb}: {counts}; "
        f"first ones: {', '.join(where[:8])}"
    ]


def judge_anova(scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per aspect: one-way ANOVA across models (F, df, p, η²) and Tukey HSD."""
    a_rows, t_rows = [], []
    for aspect, g in scores.groupby("aspect", sort=False):
        res = anova_tukey(g["score"].to_numpy(float), g["system"].to_numpy(str))
        a_rows.append(
            {
                "aspect": aspect,
                "F": res.F,
                "df_between": res.df_between,
                "df_within": res.df_within,
                "p": res.p,
                "eta_squared": res.eta_squared,
                "n": res.n,
                "note": res.note,
            }
        )
        if len(res.tukey):
            t_rows.append(res.tukey.assign(aspect=aspect))
    cols = ["aspect", *TUKEY_COLUMNS]
    return pd.DataFrame(a_rows), (
        pd.concat(t_rows, ignore_index=True)[cols] if t_rows else pd.DataFrame(columns=cols)
    )


def read_published_metrics(path: Path, prefix: str = "") -> pd.DataFrame:
    """Long table system, metric, published: the columns of ``model_metrics.csv`` that name registered metrics
    (``prefix`` + the column's name first: the study's columns are ``thesis.*`` metrics under its definition)."""
    header, it = read_rows(path)
    cols = {_norm(c): c for c in header}
    model_col = next(
        (cols[c] for c in ("model", "model_name", "system", "name", "crs") if c in cols), None
    )
    if model_col is None:
        raise CrsevalError(
            "no model column", file=path, line=1, expected="a column model (or model_name)"
        )
    known = {m.name for m in all_metrics().values() if m.capability == "shift"}
    metric_cols = {
        (prefix + n if prefix + n in known else n): c
        for n, c in cols.items()
        if prefix + n in known or n in known
    }
    rows = [
        {
            "system": r[model_col].strip(),
            "metric": n,
            "published": to_float(r[c], file=path, line=line, field=c, allow_empty=True),
        }
        for line, r in it
        for n, c in metric_cols.items()
    ]
    return pd.DataFrame(rows, columns=["system", "metric", "published"]).dropna(
        subset=["published"]
    )


def against_published(published: pd.DataFrame, reproduced: pd.DataFrame) -> pd.DataFrame:
    """system, metric, published, reproduced, abs_diff (models and metrics both sides have)."""
    mine = reproduced.rename(columns={"mean": "reproduced"})[["system", "metric", "reproduced"]]
    out = published.merge(mine, on=["system", "metric"], how="inner")
    out["abs_diff"] = (out["published"] - out["reproduced"]).abs()
    return out.sort_values(["metric", "system"]).reset_index(drop=True)


def max_difference(table: pd.DataFrame) -> dict[str, float]:
    return {m: float(g["abs_diff"].max()) for m, g in table.groupby("metric")} if len(table) else {}


__all__ = [
    "ASPECTS",
    "against_published",
    "apply_policy",
    "judge_anova",
    "judge_score_files",
    "judge_scores_from_logs",
    "max_difference",
    "read_judge_scores",
    "read_published_metrics",
]


def published(
    config, sessions: Sequence[dict[str, Any]], model_metrics: pd.DataFrame
) -> tuple[Output, dict[str, pd.DataFrame], list[str]]:
    """Judge scores and per-model metrics that came with the logs: (their tables and report section, details,
    notes)."""
    out = Output()
    details, notes, tables = {}, [], []  # tables: what this section shows
    lo, hi = (float(x) for x in config.judge_scale.split(","))
    parts = [
        read_judge_scores(judge_score_files(config.logs), (lo, hi)),
        judge_scores_from_logs(sessions, (lo, hi)),
    ]
    scores = (
        pd.concat([p for p in parts if len(p)], ignore_index=True)
        if any(len(p) for p in parts)
        else parts[0]
    )
    if len(scores):
        kept, scale_notes = apply_policy(scores, config.out_of_scale, (lo, hi))
        anova, tukey = judge_anova(kept)
        out.table("imported_judge_scores", scores)
        out.table("imported_judge_anova", anova)
        out.table("imported_judge_tukey", tukey)
        tables += ["imported_judge_anova", "imported_judge_tukey", "imported_judge_scores"]
        details["One-way ANOVA of the judge scores that came with the logs"] = anova
        notes += scale_notes
    folder = config.logs if config.logs.is_dir() else config.logs.parent
    path = config.published or next(
        (
            f
            for f in (folder / "model_metrics.csv", folder.parent / "model_metrics.csv")
            if f.is_file()
        ),
        folder / "model_metrics.csv",
    )
    if path.is_file():
        prefix = THESIS if getattr(config, "definition", "crseval") == "thesis" else ""
        table = against_published(read_published_metrics(path, prefix), model_metrics)
        out.table("published_vs_reproduced", table)
        tables.append("published_vs_reproduced")
        worst = max_difference(table)
        details["Published vs reproduced per-model means"] = table
        notes.append(
            f"reproduced {path.name}: largest |difference| per metric "
            + (
                ", ".join(f"{m} {d:.2g}" for m, d in worst.items())
                or "— no shared model and metric"
            )
        )
    if tables:
        out.section(
            "What came with the logs",
            "The study's own judge scores (range-checked; one-way ANOVA "
            "with F, degrees of freedom, p and η², then Tukey HSD) and its published per-model means "
            "set against what crseval reproduces from the same logs.\n\n" + "\n\n".join(notes),
            tables=tables,
        )
    return out, details, notes
