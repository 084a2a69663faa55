"""Serendipity proxy metrics, computed per (user, recommended item) of a user study.

Inputs (documented choices):
* item features: multi-hot genre vectors (Serendipity-2018: MovieLens genres; items without metadata
  get no features, their feature-based terms are NaN and they are counted, not dropped);
* relevance: the recommender's predicted rating rescaled to [0, 1] ((r − 0.5) / 4.5), or the user's
  own rating with ``relevance="rating"`` (closer to the ground truth — use with care);
* history (the user's profile): the movies the user rated ≥ 3.5 *strictly before* the target (never the
  target or a later item: see ``context``); answers with no such history get NaN history terms;
* unexpectedness / dissimilarity: mean cosine distance of the item to the history items;
* diversity: mean cosine distance to every movie the user rated before the target (whatever its rating);
* unpopularity: 1 − log(1 + n_i) / log(1 + max n), n_i = the study's users who rated the item (the
  whole study, so a sample scores exactly as in the full run).

Metrics:
* SOG = w_rel·rel + w_div·div + w_dis·dissimilarity + w_unpop·unpopularity (equal weights);
* SNPR = λ·rel + (1 − λ)·unexpectedness (λ: the SerenEva paper's relevance weight);
* PURS = rel + f(unexp) · factor, with unexp the Euclidean distance to the nearest of the user's
  interest clusters (k-means with k = 3 on history feature vectors; with ≤ 3 distinct history items
  each is its own cluster), f(x) = x·e^(−x) (unimodal: a
  little surprise helps, a lot does not);
* DESR = acc·dif / (acc + dif) with acc = rel, dif = dissimilarity (0 when both are 0);
* random: seeded uniform draws.

Scores map to the 1–5 scale by min-max scaling and rounding: round((x − min) / (max − min) × 4 + 1);
a constant score maps to 3 and NaN stays NaN. Each proxy's parameters (the weights, λ, the factor) are
the ones its metric declares (``crseval/serendipity/metrics.py``): :func:`score` passes them, and
:func:`signatures` signs a run with them, so what runs and what is signed cannot differ.

``protocol="sereneva"``: the SerenEva paper's Table 2 as far as its text and the shared data allow — the
history is the last 10 items the user rated before the target, whatever their rating (the items it
"interacted with"); unexpectedness and dissimilarity are the distance to the nearest of them; every answer
is scored (an answer with no earlier item has history terms 0: nothing to be unexpected against); and the
random baseline draws integers 1–5 uniformly. What the data cannot give: the paper's history came from
the users' MovieLens ratings, while the shared file holds only the study's own answers (a user answered
about 4 films), so most histories are shorter than 10 and a quarter of the answers have none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.cluster.vq import kmeans2

from crseval.data.base import SerendipityStudy


def to_likert(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    out = np.full(len(x), np.nan)
    if not ok.any():
        return out
    lo, hi = x[ok].min(), x[ok].max()
    out[ok] = 3.0 if hi == lo else np.rint((x[ok] - lo) / (hi - lo) * 4 + 1)
    return out


@dataclass
class Features:
    """Per answer: relevance, unexpectedness (dissimilarity to history), diversity, unpopularity, PURS distance."""

    table: pd.DataFrame
    missing_items: int


def _cos_dist(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    nv, nm = np.linalg.norm(v), np.linalg.norm(m, axis=1)
    ok = (nm > 0) & (nv > 0)
    d = np.full(len(m), np.nan)
    d[ok] = 1 - (m[ok] @ v) / (nm[ok] * nv)
    return d


SERENEVA_HISTORY = 10  # the paper: "the last 10 items the user interacted with before the target"


def _genre_vectors(study: SerendipityStudy) -> tuple[list[str], dict]:
    """(the genres, item → its one-hot genre vector)."""
    genres = sorted({g for it in study.items.values() for g in it.get("genres", [])})
    index = {g: i for i, g in enumerate(genres)}
    vec = {}
    for iid, it in study.items.items():
        v = np.zeros(len(genres))
        for g in it.get("genres", []):
            v[index[g]] = 1.0
        vec[iid] = v
    return genres, vec


def _against_history(
    a: pd.DataFrame, feats: np.ndarray, has: np.ndarray, paper: bool, liked: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per answer, its item against the user's past (the paper's protocol: the last 10, whatever their
    rating; crseval's: the earlier liked items): unexpectedness, diversity and PURS's cluster distance."""
    n = len(a)
    unexp, div, purs_d = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    ratings = a["rating"].to_numpy(float)
    ts = a["timestamp"].to_numpy(float) if "timestamp" in a else np.full(n, np.nan)
    for idx in a.groupby("user").indices.values():
        idx = idx[has[idx]]
        for i in idx:
            # the past only: NaN timestamps compare False, so they have none
            others = idx[ts[idx] < ts[i]]
            if paper:  # the last 10, whatever their rating
                others = others[np.argsort(ts[others], kind="stable")][-SERENEVA_HISTORY:]
            if not len(others):
                continue
            d_all = _cos_dist(feats[i], feats[others])
            if np.isfinite(d_all).any():
                div[i] = np.nanmean(d_all)
            hist = others if paper else others[ratings[others] >= liked]
            if not len(hist):
                continue
            d = _cos_dist(feats[i], feats[hist])
            if np.isfinite(d).any():
                unexp[i] = np.nanmin(d) if paper else np.nanmean(d)
            uniq = np.unique(feats[hist], axis=0)
            # with at most 3 distinct liked items every item is its own cluster; k-means only beyond that
            # seeded per answer, so an answer's clusters never depend on which other answers were computed
            centers = (
                uniq
                if len(uniq) <= 3
                else kmeans2(feats[hist], 3, minit="++", seed=np.random.default_rng([seed, i]))[0]
            )
            purs_d[i] = float(np.min(np.linalg.norm(centers - feats[i], axis=1)))
    if paper:  # every answer scored: no earlier item, nothing to be unexpected against
        unexp, div, purs_d = (np.nan_to_num(x, nan=0.0) for x in (unexp, div, purs_d))
    return unexp, div, purs_d


def features(
    study: SerendipityStudy,
    relevance: str = "predicted",
    liked: float = 3.5,
    seed: int = 0,
    protocol: str = "crseval",
) -> Features:
    a = study.answers.reset_index(drop=True)
    genres, vec = _genre_vectors(study)
    counts = a.groupby("item")["user"].nunique()
    unpop = 1 - np.log1p(a["item"].map(counts).to_numpy(float)) / np.log1p(counts.max())
    if relevance == "rating":
        rel = (a["rating"].to_numpy(float) - 0.5) / 4.5
    else:
        rel = (a["predicted_rating"].to_numpy(float) - 0.5) / 4.5
    n, items = len(a), a["item"].to_numpy()
    feats = (
        np.stack([vec.get(i, np.zeros(len(genres))) for i in items])
        if n
        else np.zeros((0, len(genres)))
    )
    paper = protocol == "sereneva"
    unexp, div, purs_d = _against_history(
        a, feats, np.array([i in vec for i in items]), paper, liked, seed
    )
    table = pd.DataFrame(
        {
            "user": a["user"],
            "item": a["item"],
            "relevance": rel,
            "unexpectedness": unexp,
            "diversity": div,
            "unpopularity": unpop,
            "purs_distance": purs_d,
        }
    )
    missing = int((~a["item"].isin(set(vec))).sum())
    return Features(table, missing)


def sog(f: pd.DataFrame, weights: tuple[float, ...]) -> np.ndarray:
    w = np.asarray(weights, float)
    parts = np.column_stack(
        [f["relevance"], f["diversity"], f["unexpectedness"], f["unpopularity"]]
    )
    return parts @ w / w.sum()


def snpr(f: pd.DataFrame, lam: float) -> np.ndarray:
    return lam * f["relevance"].to_numpy(float) + (1 - lam) * f["unexpectedness"].to_numpy(float)


def purs(f: pd.DataFrame, factor: float) -> np.ndarray:
    x = f["purs_distance"].to_numpy(float)
    return f["relevance"].to_numpy(float) + x * np.exp(-x) * factor


def desr(f: pd.DataFrame) -> np.ndarray:
    acc, dif = f["relevance"].to_numpy(float), f["unexpectedness"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((acc + dif) > 0, acc * dif / (acc + dif), 0.0) * np.where(
            np.isfinite(dif), 1, np.nan
        )


def random_scores(f: pd.DataFrame, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(len(f))


def random_expectation(truth) -> tuple[float, float]:
    """(MAE, RMSE) that :func:`random_likert` has on average over its draws against ``truth`` (its Pearson's
    expectation is 0): what one seeded draw estimates."""
    t = np.asarray(truth, float)
    gap = np.arange(1, 6)[None, :] - t[np.isfinite(t)][:, None]
    return float(np.abs(gap).mean()), float(np.sqrt((gap**2).mean()))


def earlier_items(answers: pd.DataFrame) -> np.ndarray:
    """Per answer, how many items its user rated before it (the history a proxy can read)."""
    ts = answers["timestamp"].to_numpy(float)
    out = np.zeros(len(answers), int)
    for idx in answers.groupby("user").indices.values():
        out[idx] = (ts[idx][None, :] < ts[idx][:, None]).sum(1)
    return out


def random_likert(n: int, seed: int = 0) -> np.ndarray:
    """The SerenEva paper's random baseline: integers 1–5 drawn uniformly (already on the scale; min-max
    scaling of uniform draws would give 1 and 5 half the chance of the others)."""
    return np.random.default_rng(seed).integers(1, 6, n).astype(float)


PROXIES = {"sog": sog, "snpr": snpr, "purs": purs, "desr": desr, "random": random_scores}


def score(name: str, f: pd.DataFrame, seed: int = 0) -> np.ndarray:
    """A proxy's raw scores with its declared parameters (``random``: seeded by the run's seed)."""
    from crseval.core.registry import declared_params

    if name == "random":
        return random_scores(f, seed=seed)
    return PROXIES[name](f, **declared_params(name, "serendipity"))


def signatures(names) -> dict[str, str]:
    """The signature of each proxy among ``names``, from its declared parameters: ``snpr(lam=0.7)``."""
    from crseval.core.registry import param_signatures

    return param_signatures([n for n in names if n in PROXIES], "serendipity")
