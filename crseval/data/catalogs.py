"""Movie catalogues to ground dialogue titles in, read as published and told apart by their layout.

* ReDial's movie table (``movies_id2info.json``: ``{id: {name: "Title (Year)", genre, plot, …}}``) — the
  ids are ReDial's ``@id`` mention ids;
* the OpenDialKG movie KB (``{title: {name, year, genre, plot, …}}``);
* MovieLens ``movies.csv`` (``movieId,title,genres``; titles such as ``Matrix, The (1999)``);
* ``sample`` — crseval's bundled catalogue.

Every item ends with a ``year`` (int or None) and ``genres`` (lower case) attribute.
"""

from __future__ import annotations

import re
from pathlib import Path

from crseval.core.errors import CrsevalError
from crseval.core.types import Item
from crseval.data.base import ItemCatalog
from crseval.data.io import dataset_info, existing, read_json

YEAR_SUFFIX = re.compile(r"\s*\((\d{4})\)\s*$")


def load_catalog(path: str | Path | None) -> ItemCatalog:
    """The catalogue at ``path`` (a file or a dataset folder holding one), or the bundled sample (None/'sample')."""
    from crseval.data import load_dataset

    if path is None or str(path) == "sample":
        return load_dataset("sample").movies
    p = existing(path, "catalogue")
    if p.is_dir():
        found = [
            f
            for f in (p / "movies_id2info.json", p / "opendialkg_movie_data.json", p / "movies.csv")
            if f.exists()
        ]
        if not found:
            raise CrsevalError(
                "no catalogue in this folder",
                file=p,
                expected="movies_id2info.json (ReDial), opendialkg_movie_data.json or movies.csv",
            )
        p = found[0]
    if p.suffix == ".csv":
        return load_movielens(p)
    raw = read_json(p)
    first = next(iter(raw.values()), None) if isinstance(raw, dict) else None
    if not isinstance(first, dict) or "name" not in first:
        raise CrsevalError(
            "not a movie catalogue",
            file=p,
            expected="ReDial's movies_id2info.json, the OpenDialKG "
            "movie KB (JSON) or MovieLens movies.csv",
        )
    if "year" in first or not all(k.isdigit() for k in list(raw)[:50]):
        return load_dataset("opendialkg-movies", p)
    return load_dataset("redial-movies", p)


def load_movielens(path: str | Path) -> ItemCatalog:
    """MovieLens ``movies.csv``: every movie with its year (from the title) and genres (lower case)."""
    from crseval.data.serendipity import read_movielens

    path = existing(path, "MovieLens movies.csv")
    info = dataset_info("movielens-movies", path)
    items = []
    for it in read_movielens(path, None, info.notes).values():
        m = YEAR_SUFFIX.search(it.title)
        items.append(
            Item(
                it.id,
                it.title,
                {
                    "year": int(m.group(1)) if m else None,
                    "genres": [g.lower() for g in it.get("genres", [])],
                },
            )
        )
    if not items:
        raise CrsevalError("no movies after the header", file=path)
    return ItemCatalog(info, items)
