"""The reference CRSs do what their names say (they are the known groups every metric is checked on)."""

from crseval.data.kb import load_kb
from crseval.simulation.references import INVENTED, ReferenceCRS, stubborn

KB = load_kb(None)
USER = "user"


def _say(*texts):
    history = []
    for t in texts:
        history += [{"speaker": USER, "text": t}, {"speaker": "system", "text": "Hm."}]
    return history[:-1]


def _crs(name):
    return ReferenceCRS(name, name, KB)


def _genres(reply):
    titles = [m for m in KB.movies if m.title in reply.text]
    return {g for m in titles for g in m.get("genres", [])}


def test_the_follower_and_the_laggard_and_the_forgetter_read_the_users_wishes_differently():
    history = _say("I'd like a horror movie", "Actually, I'd rather watch an animation movie now.")
    assert "animation" in _genres(_crs("template").respond(history))
    assert "horror" in _genres(_crs("laggard").respond(history))  # one turn late
    assert (_crs("forgetter").respond(history).constraints or {}).get("genres") == ["animation"]
    both = _say("I'd like a comedy", "from the 1990s please")
    kept = _crs("template").respond(both).constraints
    dropped = _crs("forgetter").respond(both).constraints
    assert kept.get("genres") == ["comedy"] and not dropped.get(
        "genres"
    )  # only the newest constraint


def test_stubborn_echo_and_hallucinator_ignore_the_wishes():
    history = _say("I'd like a horror movie")
    assert _crs("stubborn").respond(history).text == _crs("stubborn").respond(_say("a comedy")).text
    echo = _crs("echo").respond(history).text
    assert "I'd like a horror movie" in echo and "Heat" in echo
    made_up = _crs("hallucinator").respond(history).text
    assert any(t in made_up for t in INVENTED)
    assert not [m for m in KB.movies if m.title in made_up]
    assert (
        stubborn(history)["text"] == _crs("stubborn").respond(history).text
    )  # the plug-in is the same


def test_the_anchored_crs_keeps_the_first_wish_and_never_repeats_a_film():
    history = _say("I'd like a horror movie", "Actually, I'd rather watch an animation movie now.")
    anchored = _crs("anchored")
    assert "horror" in _genres(anchored.respond(history))
    assert anchored.respond(history).constraints.get("genres") == ["horror"]
    named, talk = [], [{"speaker": USER, "text": "a comedy please"}]
    for wish in ("something else", "a horror film now", "more like that"):
        reply = anchored.respond(talk)
        named += [m.title for m in KB.movies if f"How about {m.title}?" in reply.text]
        talk += [{"speaker": "system", "text": reply.text}, {"speaker": USER, "text": wish}]
    assert (
        len(named) == 3 and len(set(named)) == 3
    )  # a new comedy each time, never the horror asked for
    assert all("comedy" in next(m for m in KB.movies if m.title == t).get("genres") for t in named)


def test_the_lister_follows_the_user_with_a_numbered_list_of_three_catalogue_films():
    history = _say("I'd like a horror movie", "Actually, I'd rather watch an animation movie now.")
    reply = _crs("lister").respond(history)
    lines = [line for line in reply.text.splitlines() if line[:2] in ("1.", "2.", "3.")]
    assert len(lines) == 3 and len(reply.candidates) == 3
    assert all(t in reply.text for t in reply.candidates)
    assert all(
        "animation" in next(m for m in KB.movies if m.title == t).get("genres")
        for t in reply.candidates
    )
    assert reply.constraints.get("genres") == ["animation"]


def test_the_anchored_crs_keeps_the_first_wish_said_after_a_greeting():
    history = _say(
        "hi", "I'd like a horror movie", "Actually, I'd rather watch an animation movie now."
    )
    assert _crs("anchored").respond(history).constraints.get("genres") == ["horror"]
    assert _crs("anchored").respond(_say("hello")).text  # no wish yet: still a reply
