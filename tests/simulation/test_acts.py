"""The cues a user turn is read by, for real and simulated users alike (simulator validity)."""

from crseval.simulation.acts import TOPICS, cues, topics
from crseval.text.reactions import reaction


def test_acceptance_and_rejection_are_the_reaction_readers():
    """One reading of how a user met a film: the one rejected repeats use, checked against ReDial's forms."""
    for text in ("sounds good, I'll check it out", "none of those are what i asked for", "seen it",
                 "I don't know", "not sure", "hi", "what is it about?"):  # fmt: skip
        c, r = cues(text), reaction(text)
        assert (c["accept"], c["reject"]) == (r == "accepted", r == "rejected"), text
    assert cues("none of those are what i asked for")["reject"]
    assert cues("thanks, sounds good")["accept"] and cues("thanks, sounds good")["thanks"]
    # the broad negation cue it replaces read these as rejections; people do not mean one
    assert not cues("I don't know")["reject"] and not cues("not sure, maybe")["reject"]


def test_the_other_cues():
    c = cues("Hello! what would you recommend?")
    assert c["greeting"] and c["question"] and not c["thanks"]
    assert cues("ok bye")["closing"] and cues("thank you")["thanks"]


def test_what_a_turn_talks_about():
    said = {
        "any good horror movies?": {"genre"},
        "something from the 90s please": {"era"},
        "an old classic": {"era"},
        "who directed it?": {"person", "one_film"},
        "I like the first one": {"several_films"},
        "none of those": {"several_films"},
        "can you recommend a comedy": {"genre", "recommend"},
        "hello": set(),
        "a movie for a date": set(),  # a mood or an audience: no fact the rules read
    }
    for text, holds in said.items():
        t = topics(text)
        assert list(t) == list(TOPICS)
        assert {k for k, v in t.items() if v} == holds, text


def test_the_reader_never_reads_a_simulated_reaction_as_its_opposite():
    """The realistic user's words for accepting a film are never read as a rejection, and its rejections
    and complaints never as an acceptance (the reader misses some: "ok", "no, next" read as not said) —
    in every wording its templates compose (20 draws of each)."""
    import numpy as np

    from crseval.simulation.phrasebook import BOOK, expand

    rng = np.random.default_rng(0)
    slots = {"title": "Heat", "want": "action movies", "genre": "action", "genres": "action movies"}
    said = {act: {expand(t, rng).format(**slots) for t in BOOK[act] for _ in range(20)}
            for act in ("accept", "seen", "reject", "misfit", "repeat")}  # fmt: skip
    read = {act: [reaction(t, "How about Heat?") for t in texts] for act, texts in said.items()}
    assert "rejected" not in read["accept"] and read["accept"].count("accepted") >= 0.3 * len(
        read["accept"]
    )
    assert not {"accepted"} & {*read["reject"], *read["misfit"], *read["repeat"]}
    assert read["seen"].count("seen") >= 0.95 * len(read["seen"])
    assert read["reject"].count("rejected") >= 0.9 * len(read["reject"])
