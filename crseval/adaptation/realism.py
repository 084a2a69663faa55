"""Are the simulated users like real CRS users? ConvApparel's three pillars plus outcome, measured between the
sessions of a run and a reference of real users (CRSArena-Dial, ReDial, INSPIRED, your own logs).

- **Statistical alignment** (:func:`alignment`): per user-turn cue (words, questions, titles, acceptance,
  rejection or complaint, greetings, thanks, closings — :mod:`crseval.simulation.acts`) and turns per
  dialogue, the simulated mean beside the real one and the **human floor**: the mean gap between two
  random halves of the real users (split by user), the gap a perfect simulator would still show.
- **Human-likeness** (:mod:`crseval.adaptation.discriminators`): a panel of classifiers tells simulated
  from real users in 5-fold cross-validation grouped by user (:func:`discriminator_auc`: AUC with a 95 % CI
  from resampling users). The same classifiers on two halves of the real users are the floor (≈ .5);
  another human source against the reference is the human-vs-human row.
- **Counterfactual** (:func:`counterfactual`): per dialogue feature, how real users' behaviour differs
  between the CRS they voted for and the one they voted against in the same battle, beside how simulated
  users' behaviour differs between a CRS that follows them and one that ignores them (same users) —
  the sign and the size of each, with CIs.
- **Outcome** (:func:`outcomes`): how simulated sessions end (satisfied, frustrated, still open) per
  CRS, beside the real users' own labels with the CRS they voted for and against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from crseval.simulation.acts import CUES, TOPICS, cues, topics, words

FEATURES = (
    "words",
    "question",
    "title",
    "accept",
    "reject",
    "greeting",
    "thanks",
    "closing",
    *TOPICS,
)
COUNTERFACTUAL = ("reject", "accept", "words", "question", "turns")  # dialogue-level, in this order


@dataclass
class UserDialogue:
    """One dialogue seen from its user: the user's turns, who they are (the cross-validation group),
    the CRS, and how it ended (``satisfied``, ``frustrated``, ``open`` or None where unknown)."""

    id: str
    group: str
    system: str
    turns: list[str]
    end: str | None = None


def simulated_dialogues(records: Sequence[dict[str, Any]]) -> list[UserDialogue]:
    """The user side of a run's sessions; a simulated user meeting several CRSs is one group."""
    return [
        UserDialogue(
            str(r["key"]),
            f"sim:{r.get('user', r['session'])}",
            str(r["model"]),
            [t["user"] for t in r["turns"]],
            r.get("end"),
        )
        for r in records
    ]


def real_dialogues(source) -> list[UserDialogue]:
    """The user side of a :class:`~crseval.data.any_dialogues.DialogueSource`; an arena conversation id
    ``{system}_{user}`` names its user (both dialogues of a battle are one group)."""
    out = []
    for sd in source.dialogues:
        cid = sd.dialogue.id
        user = cid[len(sd.system) + 1 :] if cid.startswith(sd.system + "_") else cid
        label = sd.labels.get("satisfied")
        end = None if label is None else ("satisfied" if label >= 0.5 else "frustrated")
        turns = [u.text for u in sd.dialogue.utterances if not u.role.is_recommender]
        if any(t.strip() for t in turns):
            out.append(UserDialogue(cid, f"user:{user}", sd.system, turns, end))
    return out


def turn_features(texts: Sequence[str], matcher) -> pd.DataFrame:
    """Per user turn: words, every cue of :func:`crseval.simulation.acts.cues` and every topic of
    :func:`~crseval.simulation.acts.topics`, and whether it names a title (``matcher``: a
    :class:`~crseval.text.titles.TitleMatcher`; title-like spans outside its catalogue count)."""
    rows = []
    for t in texts:
        c = cues(t) | topics(t)
        rows.append(
            {"words": float(words(t)), "title": float(bool(matcher.find(t)))}
            | {k: float(c[k]) for k in (*CUES, *TOPICS)}
        )
    return pd.DataFrame(rows, columns=["words", "title", *CUES, *TOPICS])


def dialogue_features(dialogues: Sequence[UserDialogue], matcher) -> pd.DataFrame:
    """Per dialogue: the mean of each turn feature, ``turns`` (user turns) and ``accept`` counting thanks."""
    rows = []
    for d in dialogues:
        f = turn_features(d.turns, matcher)
        row = f.mean().to_dict()
        row["accept"] = float((f["accept"].astype(bool) | f["thanks"].astype(bool)).mean())
        rows.append(
            {"id": d.id, "group": d.group, "system": d.system, **row, "turns": len(d.turns)}
        )
    return pd.DataFrame(rows)


def _halves(groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random half of the distinct groups, as a mask over ``groups``."""
    uniq = np.unique(groups)
    return np.isin(groups, rng.permutation(uniq)[: len(uniq) // 2])


def alignment(
    simulated: dict[str, pd.DataFrame], real: pd.DataFrame, seed: int = 0, splits: int = 20
) -> pd.DataFrame:
    """One row per (model, feature): the simulated and real means of the per-dialogue features (turn
    features are pooled over turns, weighting dialogues by their turns), their gap and the human floor."""
    rng = np.random.default_rng(seed)

    def means(df: pd.DataFrame) -> dict[str, float]:
        w = df["turns"].to_numpy(float)
        out = {f: float(np.average(df[f], weights=w)) for f in FEATURES}
        return out | {"turns": float(df["turns"].mean())}

    real_m = means(real)
    g = real["group"].to_numpy()
    floor = {f: 0.0 for f in real_m}
    for _ in range(splits):
        a = _halves(g, rng)
        ma, mb = means(real[a]), means(real[~a])
        for f in floor:
            floor[f] += abs(ma[f] - mb[f]) / splits
    rows = []
    for model, df in simulated.items():
        sm = means(df)
        for f in real_m:
            gap = abs(sm[f] - real_m[f])
            rows.append(
                {
                    "system": model,
                    "user_feature": f,
                    "simulated": sm[f],
                    "real": real_m[f],
                    "gap": gap,
                    "human_floor": floor[f],
                    "within_floor": bool(gap <= 2 * floor[f]),
                }
            )
    return pd.DataFrame(rows)


def discriminator_auc(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    seed: int = 0,
    n_boot: int = 2000,
    model: Callable[[], Any] | None = None,
) -> tuple[float, float, float]:
    """AUC of out-of-fold predictions (``model()``, by default a standardised logistic regression; 5 folds
    grouped by ``groups``, fewer where a class has fewer groups) and its 95 % CI from resampling groups;
    NaN where a class has fewer than two groups."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedGroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    # 5 folds, fewer where a class has fewer users; with under two a side, no AUC (a small run's dialogues)
    n_splits = min(5, *(len(np.unique(groups[y == c])) for c in (0, 1)))
    if n_splits < 2:
        return float("nan"), float("nan"), float("nan")
    folds = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    pred = np.zeros(len(y))
    for train, test in folds.split(x, y, groups):
        fitted = (
            model()
            if model
            else make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000))
        )
        fitted.fit(x[train], y[train])
        pred[test] = fitted.predict_proba(x[test])[:, 1]
    rng = np.random.default_rng(seed)
    uniq, inv = np.unique(groups, return_inverse=True)
    draws = rng.integers(len(uniq), size=(n_boot, len(uniq)))
    counts = np.zeros((n_boot, len(uniq)))
    np.add.at(counts, (np.arange(n_boot)[:, None], draws), 1.0)
    boots = weighted_auc(pred, y, counts[:, inv])
    boots = boots[~np.isnan(boots)]
    lo, hi = np.percentile(boots, [2.5, 97.5]) if len(boots) else (np.nan, np.nan)
    return float(roc_auc_score(y, pred)), float(lo), float(hi)


def weighted_auc(scores: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The AUC of ``scores`` for labels ``y`` under each row of ``weights`` (a resample's count of every
    item; ties count half) — all resamples at once, from one sort. NaN where a row leaves a class empty."""
    order = np.argsort(scores, kind="mergesort")
    s, y, w = scores[order], y[order].astype(bool), np.atleast_2d(weights)[:, order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # first item of each run of tied scores
    pos = np.add.reduceat(w * y, start, axis=1)
    neg = np.add.reduceat(w * ~y, start, axis=1)
    below = np.cumsum(neg, axis=1) - neg  # negative weight strictly below each tie run
    total = pos.sum(1) * neg.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (pos * (below + 0.5 * neg)).sum(1) / total, np.nan)


def _mean_ci(diff: np.ndarray, rng: np.random.Generator, n_boot: int) -> tuple[float, float, float]:
    diff = diff[~np.isnan(diff)]
    if not len(diff):
        return np.nan, np.nan, np.nan
    boots = diff[rng.integers(len(diff), size=(n_boot, len(diff)))].mean(1)
    return float(diff.mean()), *map(float, np.percentile(boots, [2.5, 97.5]))


def counterfactual(
    real_pairs: pd.DataFrame, sim_pairs: pd.DataFrame, seed: int = 0, n_boot: int = 2000
) -> pd.DataFrame:
    """Per feature of :data:`COUNTERFACTUAL`: the mean real difference (voted for − voted against, one row
    of ``real_pairs`` a battle: ``<feature>_a`` the winner's, ``<feature>_b`` the loser's) and the mean
    simulated difference (follower − ignorer, one row of ``sim_pairs`` a simulated user), CIs, whether
    the signs agree and whether the real difference is clear (its CI excludes 0: only then is its sign a
    fact the simulated users can get right)."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in COUNTERFACTUAL:
        r = _mean_ci((real_pairs[f + "_a"] - real_pairs[f + "_b"]).to_numpy(float), rng, n_boot)
        s = _mean_ci((sim_pairs[f + "_a"] - sim_pairs[f + "_b"]).to_numpy(float), rng, n_boot)
        rows.append(
            {
                "user_feature": f,
                "real_diff": r[0],
                "real_lo": r[1],
                "real_hi": r[2],
                "real_pairs": len(real_pairs),
                "sim_diff": s[0],
                "sim_lo": s[1],
                "sim_hi": s[2],
                "sim_pairs": len(sim_pairs),
                "sign_agrees": bool(np.sign(r[0]) == np.sign(s[0]) and r[0] != 0),
                "real_clear": bool(r[1] > 0 or r[2] < 0),
            }
        )
    return pd.DataFrame(rows)


def pairs(features: pd.DataFrame, a: dict[str, str], b: dict[str, str]) -> pd.DataFrame:
    """Rows of ``features`` (by dialogue id) paired: ``a`` and ``b`` map a pair's key to the ids of its two
    dialogues; columns ``<feature>_a``, ``<feature>_b``."""
    cols = [c for c in features.columns if c not in ("id", "group", "system")]
    f = features.set_index("id")[cols]
    keys = [k for k in a if k in b and a[k] in f.index and b[k] in f.index]
    left = f.loc[[a[k] for k in keys]].reset_index(drop=True).add_suffix("_a")
    right = f.loc[[b[k] for k in keys]].reset_index(drop=True).add_suffix("_b")
    return pd.concat([pd.Series(keys, name="pair"), left, right], axis=1)


def outcomes(dialogues: dict[str, list[UserDialogue]]) -> pd.DataFrame:
    """Per source: dialogues, the share ending satisfied / frustrated / open, mean user turns."""
    rows = []
    for name, ds in dialogues.items():
        ends = [d.end for d in ds if d.end is not None]
        n = max(len(ends), 1)
        rows.append(
            {
                "source": name,
                "dialogues": len(ds),
                "satisfied": ends.count("satisfied") / n if ends else np.nan,
                "frustrated": ends.count("frustrated") / n if ends else np.nan,
                "still_open": ends.count("open") / n if ends else np.nan,
                "turns": float(np.mean([len(d.turns) for d in ds])) if ds else np.nan,
            }
        )
    return pd.DataFrame(rows)


def plot_realism(discriminator: pd.DataFrame, counterfactual: pd.DataFrame | None, path) -> None:
    """Left: each source's discriminator AUC against the real users (95 % CI; .5 = indistinguishable).
    Right: per feature, the real (voted for − against) and simulated (follower − ignorer) differences with
    CIs, each feature scaled by its largest CI end, so signs and relative sizes read on one axis."""
    from crseval.plotting import GREY, OKABE_ITO, plt, save, style

    style()
    panels = 2 if counterfactual is not None and len(counterfactual) else 1
    fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 0.45 * len(discriminator) + 1.6))
    axes = np.atleast_1d(axes)
    d = discriminator
    err = np.vstack(
        [
            d["discriminator_auc"] - d["discriminator_auc_lo"],
            d["discriminator_auc_hi"] - d["discriminator_auc"],
        ]
    )
    colors = [OKABE_ITO[{"floor": 2, "simulated": 1}.get(c, 0)] for c in d["compared"]]
    y = np.arange(len(d))
    axes[0].errorbar(
        # clipped: an AUC of 1 − 1e-16 under its CI [1, 1] is rounding, not a negative error bar
        d["discriminator_auc"],
        y,
        xerr=np.clip(np.nan_to_num(err), 0, None),
        fmt="none",
        ecolor=GREY,
        capsize=2,
    )
    axes[0].scatter(d["discriminator_auc"], y, c=colors, zorder=3, s=18)
    axes[0].axvline(0.5, color=GREY, lw=0.8, ls="--")
    axes[0].set_yticks(y, d["source"] + (" · " + d["member"] if "member" in d else ""))
    axes[0].invert_yaxis()
    axes[0].set_xlim(0.4, 1.0)
    axes[0].set_xlabel("discriminator AUC vs real users (← like people)")
    if panels == 2:
        cf = counterfactual
        scale = cf[["real_lo", "real_hi", "sim_lo", "sim_hi"]].abs().max(axis=1).replace(0, 1)
        yy = np.arange(len(cf))
        for k, (who, label) in enumerate(
            (("real", "real: voted for − against"), ("sim", "simulated: follower − ignorer"))
        ):
            mid = cf[f"{who}_diff"] / scale
            e = np.vstack([mid - cf[f"{who}_lo"] / scale, cf[f"{who}_hi"] / scale - mid])
            axes[1].errorbar(
                mid,
                yy + (k - 0.5) * 0.3,
                xerr=np.nan_to_num(e),
                fmt="o",
                color=OKABE_ITO[k],
                capsize=2,
                markersize=4,
                label=label,
            )
        axes[1].axvline(0, color=GREY, lw=0.8)
        axes[1].set_yticks(yy, cf["user_feature"])
        axes[1].invert_yaxis()
        axes[1].set_xlabel("difference (scaled per feature, 95 % CI)")
        axes[1].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=1)
    save(fig, path)
