"""crseval's shipped WordNet noun lemmatiser against NLTK's WordNetLemmatizer on a real WordNet 3.0."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

from crseval.text.wordnet_nouns import lemmatize

WORDNET = Path("/usr/share/wordnet")


def test_known_lemmas_including_nltk_quirks():
    # NLTK's doctests, and two of its well-known quirks: the shortest candidate wins ('us' → 'u', 'ass' → 'as')
    cases = {
        "dogs": "dog",
        "churches": "church",
        "aardwolves": "aardwolf",
        "abaci": "abacus",
        "hardrock": "hardrock",
        "movies": "movie",
        "stories": "story",
        "women": "woman",
        "series": "series",
        "us": "u",
        "ass": "as",
    }
    assert {w: lemmatize(w) for w in cases} == cases


@pytest.fixture(scope="module")
def nltk_wordnet(tmp_path_factory):
    if not (WORDNET / "index.noun").is_file():
        pytest.skip(
            "WordNet 3.0 not found at /usr/share/wordnet (apt-get install wordnet-base); skipping the NLTK check"
        )
    nltk = pytest.importorskip("nltk")
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    root = tmp_path_factory.mktemp("wordnet")
    for f in WORDNET.iterdir():  # NLTK's path sandbox refuses symlinks out of its data folder: copy
        if f.is_file():
            shutil.copy(f, root / f.name)
    names = [
        "adj.all",
        "adj.pert",
        "adv.all",
        *(
            f"noun.{n}"
            for n in (
                "Tops act animal artifact attribute body cognition communication event feeling food group location motive "
                "object person phenomenon plant possession process quantity relation shape state substance time"
            ).split()
        ),
        *(
            f"verb.{n}"
            for n in (
                "body change cognition communication competition consumption contact creation "
                "emotion motion perception possession social stative weather"
            ).split()
        ),
        "adj.ppl",
    ]
    kind = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
    (root / "lexnames").write_text(
        "".join(f"{i:02d}\t{n}\t{kind[n.split('.')[0]]}\n" for i, n in enumerate(names))
    )
    nltk.data.path.append(str(root))

    class Reader(WordNetCorpusReader):
        def map_wn(
            self, version="wordnet"
        ):  # WordNet 3.0 itself: no mapping (and no index.sense needed)
            return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Reader(str(root), None)


def test_equals_nltk_on_every_noun_form(nltk_wordnet):
    """Every alphabetic noun lemma, every exception form, and each lemma inflected by every rule."""
    lemmas = [
        line.split()[0]
        for line in (WORDNET / "index.noun").read_text().splitlines()
        if not line.startswith(" ")
    ]
    words = {w for w in lemmas if re.fullmatch("[a-z]+", w)}
    words |= {w + s for w in list(words) for s in ("s", "es", "ies", "men", "ves", "ches")}
    words |= {
        line.split()[0]
        for line in (WORDNET / "noun.exc").read_text().splitlines()
        if re.fullmatch("[a-z]+", line.split()[0])
    }
    words |= {"xyzzies", "qwerty", "a", "ss"}
    wrong = []
    for w in sorted(words):
        found = nltk_wordnet._morphy(w, "n")
        if (min(found, key=len) if found else w) != lemmatize(w):
            wrong.append(w)
    assert not wrong, wrong[:20]
    assert len(words) > 300_000
