"""The OpenDialKG movie knowledge base (title → year, actor, director, genre, language, writer, plot).

Normalisation: genres are mapped onto a small canonical vocabulary (``Romance Film`` → romance,
``Science Fiction`` → sci-fi, ``Romantic comedy`` → romance + comedy); values that are not genres
(countries such as "United Kingdom", people, topics such as "World War II") are filtered and
*reported* in the dataset notes. People lists are de-duplicated in order, languages lose the
"Language" suffix, years become integers (missing → None).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from crseval.core.errors import CrsevalError
from crseval.core.types import Item
from crseval.data.io import dataset_info, existing, read_json
from crseval.data.base import ItemCatalog

_ALIASES: dict[str, tuple[str, ...]] = {
    "action": ("action", "action film", "martial arts film", "buddy cop film"),
    "adventure": ("adventure", "adventure film", "adventure fiction"),
    "animation": ("animation", "computer animation", "animated cartoon", "anime", "stop motion"),
    "biography": ("biography", "biographical film", "docudrama"),
    "comedy": (
        "comedy",
        "black comedy",
        "slapstick",
        "parody",
        "satire",
        "screwball comedy",
        "farce",
        "comedy of manners",
        "mockumentary",
        "political satire",
        "comedy of errors",
        "sitcom",
        "romantic comedy",
        "horror comedy",
        "comedy-drama",
        "tragicomedy",
        "buddy film",
    ),
    "crime": (
        "crime",
        "crime fiction",
        "heist film",
        "police procedural",
        "true crime",
        "film noir",
        "neo-noir",
        "film-noir",
    ),
    "documentary": ("documentary", "documentary film"),
    "drama": (
        "drama",
        "historical period drama",
        "costume drama",
        "melodrama",
        "teen drama",
        "legal drama",
        "comedy-drama",
        "tragicomedy",
        "tragedy",
    ),
    "family": ("family", "family (film genre) #395"),
    "fantasy": (
        "fantasy",
        "romantic fantasy",
        "sword and sorcery",
        "high fantasy",
        "urban fantasy",
        "contemporary fantasy",
        "fairy tale",
        "science fantasy",
    ),
    "history": ("history", "historical fiction", "epic film"),
    "horror": (
        "horror",
        "slasher",
        "psychological horror",
        "splatter film",
        "zombie film",
        "vampire film",
        "monster movie",
        "horror comedy",
        "zombie (media genre)",
    ),
    "music": ("music",),
    "musical": ("musical", "backstage musical", "dance film", "musical theatre"),
    "mystery": ("mystery", "detective fiction", "whodunit"),
    "romance": (
        "romance",
        "romance film",
        "romantic comedy",
        "paranormal romance",
        "romantic fantasy",
    ),
    "sci-fi": (
        "sci-fi",
        "science fiction",
        "dystopia",
        "post-apocalyptic fiction",
        "space opera",
        "cyberpunk",
        "future noir",
        "utopian and dystopian fiction",
        "soft science fiction",
        "speculative fiction",
    ),
    "sport": ("sport", "sports"),
    "thriller": (
        "thriller",
        "psychological thriller",
        "political thriller",
        "suspense",
        "spy film",
    ),
    "war": ("war", "war film"),
    "western": ("western", "spaghetti western", "revisionist western"),
    "indie": ("indie film", "indie"),
    "teen": ("teen film", "coming of age"),
    "superhero": ("superhero movie",),
    "disaster": ("disaster film",),
}
GENRE_MAP: dict[str, tuple[str, ...]] = {}
for _canon, _forms in _ALIASES.items():
    for _f in _forms:
        GENRE_MAP[_f] = GENRE_MAP.get(_f, ()) + (_canon,)
GENRES: tuple[str, ...] = tuple(_ALIASES)


def normalise_genres(values: list[str], noise: Counter) -> list[str]:
    out: list[str] = []
    for v in values:
        canon = GENRE_MAP.get(v.strip().lower())
        if canon is None:
            noise[v] += 1
            continue
        out += [c for c in canon if c not in out]
    return out


def normalise_language(value: str) -> str:
    return re.sub(r"\s+language$", "", value.strip(), flags=re.I)


def _list(rec: dict, key: str, path: Path, title: str) -> list[str]:
    value = rec.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CrsevalError(
            f"movie {title!r}: is {type(value).__name__}",
            file=path,
            field=key,
            expected="a list of strings",
        )
    return list(dict.fromkeys(v.strip() for v in value if v.strip()))


def load(path: str | Path) -> ItemCatalog:
    p = existing(path, "OpenDialKG movie KB")
    raw = read_json(p)
    if not isinstance(raw, dict):
        raise CrsevalError(
            "top level is not an object", file=p, expected="{title: {name, year, actor, …}}"
        )
    info = dataset_info("opendialkg-movies", p)
    noise: Counter = Counter()
    bad_years = 0
    items = []
    for key, rec in raw.items():
        if not isinstance(rec, dict):
            raise CrsevalError(
                f"movie {key!r}: is {type(rec).__name__}", file=p, expected="an object"
            )
        title = str(rec.get("name") or key).strip()
        year_raw = rec.get("year")
        year = None
        if year_raw not in (None, ""):
            try:
                year = int(str(year_raw).strip()[:4])
            except ValueError:
                bad_years += 1
        items.append(
            Item(
                str(rec.get("original_id", key)),
                title,
                {
                    "year": year,
                    "genres": normalise_genres(_list(rec, "genre", p, title), noise),
                    "actor": _list(rec, "actor", p, title),
                    "director": _list(rec, "director", p, title),
                    "writer": _list(rec, "writer", p, title),
                    "language": list(
                        dict.fromkeys(
                            normalise_language(v) for v in _list(rec, "language", p, title)
                        )
                    ),
                    "plot": str(rec.get("plot") or "").strip(),
                },
            )
        )
    if noise:
        top = ", ".join(f"{k} ×{v}" for k, v in noise.most_common(8))
        info.notes.append(
            f"filtered {sum(noise.values())} non-genre values ({len(noise)} distinct) from genre "
            f"lists, e.g. {top}"
        )
    if bad_years:
        info.notes.append(f"{bad_years} unparseable years set to None")
    return ItemCatalog(info, items)
