"""NLTK's WordNet noun lemmatiser without NLTK's data download: ``lemmatize(word)`` equals
``nltk.stem.WordNetLemmatizer().lemmatize(word)`` (part of speech: noun) for every lowercase
alphabetic word, read from WordNet 3.0's noun lemmas and exceptions shipped in
``data/wordnet30_nouns.txt.gz`` (made by ``tools/wordnet_nouns.py``).

NLTK's rule (``WordNetCorpusReader._morphy``): the candidates are the word itself followed by its
exceptions when it has any, else by every detachment-rule form; keep those that are noun lemmas
(first occurrence wins); return the shortest (the first among equals), or the word when none is.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources

SUBSTITUTIONS = (
    ("s", ""),
    ("ses", "s"),
    ("ves", "f"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
)


@lru_cache(maxsize=1)
def _tables() -> tuple[frozenset[str], dict[str, list[str]]]:
    text = gzip.decompress(
        resources.files("crseval.text").joinpath("data/wordnet30_nouns.txt.gz").read_bytes()
    )
    lemmas: set[str] = set()
    exceptions: dict[str, list[str]] = {}
    section = None
    for line in text.decode().splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("["):
            section = line
        elif section == "[lemmas]":
            lemmas.add(line)
        else:
            form, *targets = line.split()
            exceptions[form] = targets
    return frozenset(lemmas), exceptions


@lru_cache(maxsize=200_000)
def lemmatize(word: str) -> str:
    lemmas, exceptions = _tables()
    forms = (
        exceptions[word]
        if word in exceptions
        else [word[: -len(old)] + new for old, new in SUBSTITUTIONS if word.endswith(old)]
    )
    found = [f for f in dict.fromkeys([word, *forms]) if f in lemmas]
    return min(found, key=len) if found else word
