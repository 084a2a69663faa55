"""Regenerate ``crseval/simulation/data/requested_genres.toml``: how often people asking for films name each
genre — ReDial seekers' turns (the shared test split and valid sample: 2,243 dialogues, CC-BY-4.0), each
genre cue not negated counted once per turn, titles masked first (so "Star Wars" is not a war film asked
for). The realistic simulated user wants a genre with this share (:mod:`crseval.simulation.persona`), not
with the catalogue's share of films: people ask for comedies and horror far more often than a catalogue
holds them, and for dramas far less.

    python -m tools.requested_genres ../shared/data/redial
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "crseval" / "simulation" / "data" / "requested_genres.toml"
HEADER = """# How often ReDial seekers name each genre when they ask for films: genre cues not negated, once per turn,
# titles masked (tools/requested_genres.py; {turns} seeker turns of {dialogues} dialogues of ReDial's test
# split and valid sample). ReDial: Li et al., "Towards Deep Conversational Recommendations", NeurIPS 2018,
# https://redialdata.github.io/website/ — CC-BY-4.0. Counts, not text: no turn is copied.
"""


def main(folder: Path) -> None:
    from crseval.adaptation.discriminators import mask
    from crseval.data.any_dialogues import read_dialogues
    from crseval.data.kb import load_kb
    from crseval.text.movie_text import genre_mentions
    from crseval.text.titles import TitleMatcher

    matcher = TitleMatcher(load_kb(folder / "movies_id2info.json").movies)
    counts: Counter[str] = Counter()
    turns = dialogues = 0
    for split in ("test_data.jsonl", "valid_data.jsonl"):
        for sd in read_dialogues(folder / split).dialogues:
            dialogues += 1
            for u in sd.dialogue.utterances:
                if not u.role.is_recommender:
                    turns += 1
                    counts.update(
                        {g for g, neg in genre_mentions(mask(u.text, matcher)) if not neg}
                    )
    lines = [f'"{g}" = {n}' for g, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    OUT.write_text(HEADER.format(turns=turns, dialogues=dialogues) + "\n".join(lines) + "\n")
    print(
        f"{OUT.relative_to(ROOT)}: {len(counts)} genres from {turns} turns of {dialogues} dialogues"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
