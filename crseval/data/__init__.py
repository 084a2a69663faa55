"""Dataset loaders behind one entry point: ``crseval.load_dataset(name, path)``.

Real datasets are not bundled (licences): point ``path`` at your copy (``source`` says where each comes
from). ``sample`` is our own tiny dataset inside the package (movies, strategy-labelled dialogues,
ratings) and needs no path. ``kind`` groups the loaders: ``ratings`` loaders are the reliability presets.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from crseval.core.errors import CrsevalError


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    loader: Callable[..., Any]
    description: str
    default_path: str  # relative to a datasets root such as ../shared/data
    kind: str  # dialogues, items, ratings, serendipity, sample
    source: str  # where to get it


def _lazy(module: str, fn: str, **kw: Any) -> Callable[..., Any]:
    def load(path: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(f"crseval.data.{module}"), fn)(path, **kw)

    return load


_GH = "https://github.com/"
DATASETS: dict[str, DatasetSpec] = {
    s.name: s
    for s in [
        DatasetSpec(
            "inspired",
            _lazy("inspired", "load"),
            "INSPIRED dialogues with recommender strategy labels",
            "inspired",
            "dialogues",
            _GH + "sweetpeach/Inspired (data/dialog_data)",
        ),
        DatasetSpec(
            "redial",
            _lazy("redial", "load"),
            "ReDial dialogues (jsonl), @mentions resolved",
            "redial",
            "dialogues",
            "https://redialdata.github.io/website/ (or KGSF's preprocessed jsonl)",
        ),
        DatasetSpec(
            "redial-movies",
            _lazy("redial", "load_movies"),
            "ReDial movie table (movies_id2info.json)",
            "redial/movies_id2info.json",
            "items",
            _GH + "RUCAIBox/iEvaLM-CRS (data/redial/id2info.json)",
        ),
        DatasetSpec(
            "opendialkg-movies",
            _lazy("opendialkg", "load"),
            "OpenDialKG movie knowledge base",
            "opendialkg/opendialkg_movie_data.json",
            "items",
            _GH + "happysnail06/PEPPER",
        ),
        DatasetSpec(
            "movielens-movies",
            _lazy("catalogs", "load_movielens"),
            "MovieLens movies.csv (titles, years, genres): a catalogue for `dialogues metrics`",
            "serendipity/serendipity2018/movies.csv",
            "items",
            "https://grouplens.org/datasets/movielens/",
        ),
        DatasetSpec(
            "ratings",
            _lazy("ratings", "load_ratings", item_col="item", rater_col="rater"),
            "generic wide ratings CSV with 'item' and 'rater' columns (see load_ratings for other layouts)",
            "",
            "generic",
            "your own file",
        ),
        DatasetSpec(
            "crs-que",
            _lazy("ratings", "load_crs_que"),
            "CRS-Que crowd ratings (18 dimensions)",
            "judgments/crs_que/annotations.csv",
            "ratings",
            _GH + "michael-mue/reliable-crs-eval (data/)",
        ),
        DatasetSpec(
            "ab-redial",
            _lazy("ratings", "load_ab_redial"),
            "AB-ReDial dialogue-level ratings",
            "judgments/ab_redial",
            "ratings",
            _GH + "Clemenciah/AB-ReDial",
        ),
        DatasetSpec(
            "ab-redial-turns",
            _lazy("ratings", "load_ab_redial", level="turn"),
            "AB-ReDial turn-level ratings",
            "judgments/ab_redial",
            "ratings",
            _GH + "Clemenciah/AB-ReDial",
        ),
        DatasetSpec(
            "uss-redial",
            _lazy("ratings", "load_uss_redial"),
            "USS ReDial user-turn satisfaction",
            "judgments/uss_redial/ReDial.txt",
            "ratings",
            _GH + "sunnweiwei/user-satisfaction-simulation",
        ),
        DatasetSpec(
            "judged",
            _lazy("judged", "load_judged"),
            "dialogues with human labels, read as published: "
            "CRSArena-Eval / crseval JSON, the arena's dialogues, AB-ReDial, USS-ReDial (dialogue level)",
            "judgments/ab_redial",
            "judged",
            "CRSArena-Eval (iai-group), AB-ReDial, USS-ReDial, CRSArena-Dial",
        ),
        DatasetSpec(
            "judged-turns",
            _lazy("judged", "load_judged", level="turn"),
            "the same sets at turn level",
            "judgments/uss_redial/ReDial.txt",
            "judged",
            "as above",
        ),
        DatasetSpec(
            "arena-votes",
            _lazy("votes", "load_votes"),
            "pairwise votes between CRSs (CRSArena-Dial layout)",
            "arena/crsarena_dial/votes_open.csv",
            "votes",
            _GH + "iai-group/crsarena-dial (data/)",
        ),
        DatasetSpec(
            "serendipity2018",
            _lazy("serendipity", "load_serendipity2018"),
            "Serendipity-2018 user study",
            "serendipity/serendipity2018",
            "serendipity",
            "https://grouplens.org/datasets/serendipity-2018/",
        ),
        DatasetSpec(
            "taobao-serendipity",
            _lazy("serendipity", "load_taobao"),
            "Taobao Serendipity user study",
            "serendipity/taobao",
            "serendipity",
            _GH + "greenblue96/Taobao-Serendipity-Dataset",
        ),
        DatasetSpec(
            "sample",
            _lazy("bundled", "load"),
            "crseval's own bundled sample (no path needed)",
            "",
            "sample",
            "bundled in the package",
        ),
    ]
}


def names_of(kind: str) -> list[str]:
    """The dataset names of one kind (e.g. the ``ratings`` presets), in registration order."""
    return [n for n, s in DATASETS.items() if s.kind == kind]


def load_dataset(name: str, path: str | Path | None = None) -> Any:
    """Load dataset ``name`` from ``path`` (a file or the dataset's folder)."""
    if name not in DATASETS:
        raise CrsevalError(
            f"unknown dataset {name!r}", field="name", expected="one of " + ", ".join(DATASETS)
        )
    if path is None and name != "sample":
        raise CrsevalError(
            f"dataset {name!r} needs a path",
            field="path",
            fix=f"e.g. ../shared/data/{DATASETS[name].default_path} (source: {DATASETS[name].source})",
        )
    return DATASETS[name].loader(path)


__all__ = ["DATASETS", "DatasetSpec", "load_dataset", "names_of"]
