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
