"""A phrasebook grounded in real user turns: slots where titles, genres, people and years were, acts read
by rules, nothing copied that names a film."""

from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.any_dialogues import DialogueSource, SourcedDialogue
from crseval.data.io import DatasetInfo
from crseval.data.kb import load_kb
from crseval.simulation.phrasebook import BOOK, book_from_dialogues


def _source(user_turns: list[list[str]]) -> DialogueSource:
    dialogues = []
    for i, turns in enumerate(user_turns):
        utts = [u for t in turns for u in (Utterance(Role.USER, t), Utterance(Role.SYSTEM, "ok"))]
        dialogues.append(SourcedDialogue(Dialogue.from_utterances(f"d{i}", utts), "crs"))
    return DialogueSource(DatasetInfo("users", "-", "0"), "judged:users", dialogues)


def test_turns_become_templates_of_their_act_with_slots_refilled():
    kb = load_kb()
    title = kb.movies[0].title
    users = [
        [
            "hello",
            "can you recommend a good horror movie?",
            f"what is {title} about?",
            "any other movies?",
            "thanks",
            "Zorblax Returns is great",  # a title no catalogue knows, in one dialogue only
            "no more comedy please",  # a negated genre: never a wish template
        ]
        for _ in range(6)
    ]
    book = book_from_dialogues(_source(users), kb, minimum=1, shared=2)
    assert "can you recommend a good {genre} movie?" in book["genre"] + book["open"]
    assert "what is {title} about?" in book["ask"]
    assert "any other movies?" in book["more"] and "hello" in book["greet"]
    assert "thanks" in book["thanks"]
    every = [t for templates in book.values() for t in templates]
    assert not any(title.lower() in t.lower() or "comedy" in t for t in every)
    assert not any("Zorblax" in t for t in every)  # a capitalised name no slot covers


def test_a_word_few_dialogues_use_keeps_its_turn_out():
    kb = load_kb()
    turn = "what about zorblax returns?"  # a title no catalogue knows, written in lower case
    rare = book_from_dialogues(_source([[turn]] + [["hello"]] * 5), kb, minimum=1, shared=2)
    common = book_from_dialogues(_source([[turn]] * 6), kb, minimum=1, shared=2)
    assert turn not in rare["other"] and turn in common["other"]


def test_an_act_with_too_few_real_templates_keeps_the_bundled_ones():
    kb = load_kb()
    book = book_from_dialogues(_source([["hello"]] * 3), kb, minimum=5)
    assert book["greet"] == BOOK["greet"] and book["quit"] == BOOK["quit"]


def test_the_bundled_book_covers_every_act_and_its_context_states_no_wish():
    from crseval.simulation.persona import PLURAL, _spoken
    from crseval.text.movie_text import genre_mentions, years

    kb = load_kb()
    acts = {
        "greet",
        "open",
        "genre",
        "answer",
        "accept",
        "ask",
        "reject",
        "misfit",
        "thanks",
        "quit",
    }
    assert acts <= set(BOOK) and all(len(BOOK[a]) >= 10 for a in acts)
    for sentence in BOOK["context"]:  # put before a request: it must not change what is asked for
        assert not genre_mentions(sentence) and not years(sentence) and not kb.find_names(sentence)
    # a genre as a plural noun reads as the same genre
    for genre in (*PLURAL, "action", "sport"):
        spoken = _spoken({"genre": genre})["genres"]
        assert [g for g, neg in genre_mentions(spoken)] == [genre], spoken


def test_a_template_composed_of_parts_says_each_of_its_wordings_and_counts_them():
    import numpy as np

    from crseval.simulation.phrasebook import PARTS, expand, wordings

    rng = np.random.default_rng(0)
    template = "[can|could] you [please |]recommend [a [good |]|some ]{genre} movie[?|]"
    said = {expand(template, rng) for _ in range(2000)}
    assert len(said) == wordings(template) == 2 * 2 * 3 * 2  # nested choices multiplied out by hand
    assert (
        "can you recommend a good {genre} movie?" in said
        and "could you please recommend some {genre} movie" in said
    )
    assert all("  " not in s and "[" not in s and "|" not in s for s in said)
    with_part = {expand("<can_you> help?", rng) for _ in range(500)}
    assert with_part == {f"{p} help?" for p in PARTS["can_you"]} and wordings(
        "<can_you> help?"
    ) == len(PARTS["can_you"])
    assert expand("hello [there]", rng) == "hello [there]"  # a bracket without a choice is text


def test_every_wording_of_the_bundled_book_is_plain_text_with_known_slots():
    import re

    import numpy as np

    from crseval.simulation.phrasebook import expand, wordings

    rng = np.random.default_rng(1)
    slots = {
        "genre",
        "genre2",
        "genres",
        "title",
        "year",
        "person",
        "language",
        "topic",
        "want",
        "old",
    }
    for act, templates in BOOK.items():
        for template in templates:
            assert wordings(template) >= 1
            for _ in range(10):
                said = expand(template, rng)
                assert not re.search(r"[\[\]<>|]|\s[,.?!]|\s\s", said), (act, said)
                # composed wordings stay grammatical: no word twice in a row ("please please"),
                # no "?," nor "i 'm", no "I'm looking for to watch"
                assert not re.search(r"\b(\w+) \1\b|[?!][,.]|\w '|\bfor to\b", said), (act, said)
                assert set(re.findall(r"\{(\w+)\}", said)) <= slots, (act, said)
    assert sum(wordings(t) for ts in BOOK.values() for t in ts) > 20 * sum(map(len, BOOK.values()))
