"""Regenerate ``crseval/text/data/wordnet30_nouns.txt.gz`` from a WordNet 3.0 database folder
(Debian/Ubuntu: ``apt-get install wordnet-base`` → ``/usr/share/wordnet``).

The file holds what NLTK's ``WordNetLemmatizer().lemmatize(word)`` (noun, the default part of speech)
consults for a lowercase alphabetic word: the noun lemmas of ``index.noun`` and the noun exceptions
of ``noun.exc`` whose surface form is alphabetic. ``crseval.text.wordnet_nouns`` reads it;
``tests/text/test_wordnet_nouns.py`` checks it against NLTK where a WordNet folder is present.

    python -m tools.wordnet_nouns /usr/share/wordnet
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

ALPHA = re.compile(r"[a-z]+")
OUT = Path(__file__).resolve().parents[1] / "crseval" / "text" / "data" / "wordnet30_nouns.txt.gz"
HEADER = """# WordNet 3.0 noun lemmas and noun exceptions, as consulted by a noun lemmatiser (tools/wordnet_nouns.py).
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS
# PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED.
# (Licence: https://wordnet.princeton.edu/license-and-commercial-use)
"""


def main(folder: Path) -> None:
    lemmas = [
        line.split()[0]
        for line in (folder / "index.noun").read_text().splitlines()
        if line and not line.startswith(" ")
    ]
    exceptions = [
        line.split() for line in (folder / "noun.exc").read_text().splitlines() if line.strip()
    ]
    exceptions = [e for e in exceptions if ALPHA.fullmatch(e[0])]
    known = set(lemmas)
    keep = {w for w in lemmas if ALPHA.fullmatch(w)} | {
        t for e in exceptions for t in e[1:] if t in known
    }
    body = ["[lemmas]", *sorted(keep), "[exceptions]", *(" ".join(e) for e in exceptions)]
    OUT.write_bytes(gzip.compress((HEADER + "\n".join(body) + "\n").encode(), mtime=0))
    print(f"{OUT}: {len(keep)} lemmas, {len(exceptions)} exceptions")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"))
