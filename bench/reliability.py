"""The full CRS-Que reliability table (ICC(1), ICC(1,k), crossed REML, Krippendorff's alpha for all
18 dimensions) against the named peer: statsmodels' truly crossed MixedLM (one group, variance
components for item and rater) on the same data. Target: crseval ≤ 1 s for the whole table.

usage: python bench/reliability.py [PATH_TO_annotations.csv] [--dims N]   (N: limit the peer's dimensions)
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import statsmodels.formula.api as smf

import _record as record

from crseval.data import load_dataset
from crseval.reliability.analysis import reliability_table
from crseval.reliability.qc import quality_control

DEFAULT = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "judgments"
    / "crs_que"
    / "annotations.csv"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--dims", type=int, default=None)
    a = ap.parse_args()
    if not Path(a.path).exists():
        print(f"CRS-Que annotations not found at {a.path}; skipping")
        return 0
    ratings = quality_control(load_dataset("crs-que", a.path)).ratings
    reliability_table(ratings, ratings.dimensions[:1])  # warm-up (imports, first-call overhead)
    t0 = time.perf_counter()
    table = reliability_table(ratings).set_index("dimension")
    t_ours = time.perf_counter() - t0

    dims = ratings.dimensions[: a.dims] if a.dims else ratings.dimensions
    diffs, t_peer = [], 0.0
    for dim in dims:
        d = ratings.dimension(dim)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = smf.mixedlm(
                "value ~ 1",
                d,
                groups=np.ones(len(d)),
                vc_formula={"item": "0 + C(item)", "rater": "0 + C(rater)"},
            ).fit(reml=True)
        t_peer += time.perf_counter() - t0
        vc = dict(zip(m.model.exog_vc.names, m.vcomp))
        row = table.loc[dim]
        diffs.append(
            max(
                abs(row["var_item"] - vc["item"]),
                abs(row["var_rater"] - vc["rater"]),
                abs(row["var_resid"] - m.scale),
            )
        )
    per_dim_peer = t_peer / len(dims)
    print(
        f"CRS-Que: {len(ratings)} ratings, {len(ratings.items)} dialogues, {len(ratings.raters)} raters, "
        f"{len(ratings.dimensions)} dimensions"
    )
    print(
        f"crseval full table (ICC REML+ANOVA, crossed REML, alpha ord+int): {t_ours:.3f} s (target ≤ 1 s)"
    )
    print(
        f"peer statsmodels crossed MixedLM: {t_peer:.1f} s for {len(dims)} dimensions "
        f"({per_dim_peer:.2f} s/dimension → {per_dim_peer * 18:.0f} s for 18)"
    )
    print(
        f"speed ratio (peer crossed fit per dimension / crseval whole row per dimension): "
        f"{per_dim_peer / (t_ours / 18):.0f}×"
    )
    print(f"largest |Δ variance component| vs statsmodels: {max(diffs):.2e}")
    record.data(a.path)
    record.table(
        f"CRS-Que, {len(ratings)} ratings × {len(ratings.dimensions)} dimensions: the whole reliability "
        "table against statsmodels' crossed MixedLM (named peer)",
        [
            {
                "": "crseval, whole table (ICC REML + ANOVA, crossed REML, α ordinal + interval)",
                "seconds": round(t_ours, 3),
                "per dimension s": round(t_ours / 18, 4),
            },
            {
                "": f"peer: statsmodels crossed MixedLM ({len(dims)} dimensions)",
                "seconds": round(t_peer, 1),
                "per dimension s": round(per_dim_peer, 3),
            },
        ],
        note=f"peer / crseval per dimension: {per_dim_peer / (t_ours / 18):.0f}×; largest variance-"
        f"component difference {max(diffs):.1e}",
    )
    ok = t_ours <= 1.0 and max(diffs) < 1e-3
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(record.run(main))
