"""Dataset loaders behind one entry point: ``crseval.load_dataset(name, path)``.

Real datasets are not bundled (licences): point ``path`` at your copy. ``sample`` is our own tiny
dataset inside the package (movies, strategy-labelled dialogues, ratings) and needs no path.
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


def _lazy(module: str, fn: str, **kw: Any) -> Callable[..., Any]:
    def load(path: Any) -> Any:
        import importlib
        return getattr(importlib.import_module(f"crseval.data.{module}"), fn)(path, **kw)
    return load


DATASETS: dict[str, DatasetSpec] = {s.name: s for s in [
    DatasetSpec("inspired", _lazy("inspired", "load"), "INSPIRED dialogues with recommender strategy labels",
                "inspired"),
    DatasetSpec("redial", _lazy("redial", "load"), "ReDial dialogues (jsonl), @mentions resolved", "redial"),
    DatasetSpec("redial-movies", _lazy("redial", "load_movies"), "ReDial movie table (movies_id2info.json)",
                "redial/movies_id2info.json"),
    DatasetSpec("opendialkg-movies", _lazy("opendialkg", "load"), "OpenDialKG movie knowledge base",
                "opendialkg/opendialkg_movie_data.json"),
    DatasetSpec("ratings", _lazy("ratings", "load_ratings", item_col="item", rater_col="rater"),
                "generic wide ratings CSV with 'item' and 'rater' columns (see load_ratings for other layouts)", ""),
    DatasetSpec("crs-que", _lazy("ratings", "load_crs_que"), "CRS-Que crowd ratings (18 dimensions)",
                "judgments/crs_que/annotations.csv"),
    DatasetSpec("ab-redial", _lazy("ratings", "load_ab_redial"), "AB-ReDial dialogue-level ratings",
                "judgments/ab_redial"),
    DatasetSpec("ab-redial-turns", _lazy("ratings", "load_ab_redial", level="turn"), "AB-ReDial turn-level ratings",
                "judgments/ab_redial"),
    DatasetSpec("uss-redial", _lazy("ratings", "load_uss_redial"), "USS ReDial user-turn satisfaction",
                "judgments/uss_redial/ReDial.txt"),
    DatasetSpec("serendipity2018", _lazy("serendipity", "load_serendipity2018"), "Serendipity-2018 user study",
                "serendipity/serendipity2018"),
    DatasetSpec("taobao-serendipity", _lazy("serendipity", "load_taobao"), "Taobao Serendipity user study",
                "serendipity/taobao"),
    DatasetSpec("sample", _lazy("sample", "load"), "crseval's own bundled sample (no path needed)", ""),
]}


def load_dataset(name: str, path: str | Path | None = None) -> Any:
    """Load dataset ``name`` from ``path`` (a file or the dataset's folder)."""
    if name not in DATASETS:
        raise CrsevalError(f"unknown dataset {name!r}", field="name", expected="one of " + ", ".join(DATASETS))
    if path is None and name != "sample":
        raise CrsevalError(f"dataset {name!r} needs a path", field="path",
                           fix=f"e.g. ../shared/data/{DATASETS[name].default_path}")
    return DATASETS[name].loader(path)


__all__ = ["DATASETS", "DatasetSpec", "load_dataset"]
