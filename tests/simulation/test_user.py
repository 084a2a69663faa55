"""The user simulator: deterministic per seed, shifts on schedule, truth logged."""

from crseval.data.kb import load_kb
from crseval.simulation.crs import KBCRS
from crseval.simulation.user import SimulatorConfig, UserSimulator


def _talk(seed, cfg=SimulatorConfig(), turns=12):
    kb = load_kb()
    user, crs = UserSimulator(kb, seed, cfg), KBCRS("t", kb, seed=seed)
    history, log = [], []
    text, truth = user.opening()
    for t in range(turns):
        history.append({"speaker": "user", "text": text})
        reply = crs.respond(history)
        history.append({"speaker": "system", "text": reply.text})
        log.append((text, truth))
        text, truth = user.reply(t + 1, reply.text)
    return user, log


def test_same_seed_same_session_and_different_seeds_differ():
    a, la = _talk(3)
    b, lb = _talk(3)
    assert la == lb
    assert a.true_genre == b.true_genre
    others = [_talk(s)[1] for s in range(4, 8)]
    assert any(o != la for o in others)


def test_shifts_follow_the_schedule_and_are_logged():
    _, log = _talk(5, SimulatorConfig(shift_every=(2, 2)), turns=9)
    shifts = [t for t, (_, truth) in enumerate(log) if truth["shift"]]
    assert shifts == [2, 4, 6, 8]
    for t in shifts:
        truth = log[t][1]
        assert truth["kind"] in ("genre", "year", "actor", "director", "writer", "language", "plot")
        assert truth["to"] is not None
        assert truth["topics"]


def test_wrong_start_is_corrected_at_the_first_shift():
    user, log = _talk(1, SimulatorConfig(error_rate=1.0, shift_every=(2, 2)), turns=3)
    assert user.start_genre != user.true_genre
    first = log[2][1]
    assert first["shift"]
    assert first["kind"] == "genre"
    assert first["to"] == [user.true_genre]
    assert first["contradiction"]


def test_contradictions_take_back_what_was_said():
    _, log = _talk(2, SimulatorConfig(contradiction_rate=1.0, shift_every=(1, 1)), turns=10)
    contra = [(text, truth) for text, truth in log if truth["contradiction"]]
    assert contra
    assert all(("not" in text.lower()) for text, _ in contra)
    assert all(truth["from"] is not None for _, truth in contra)


def test_no_contradictions_or_errors_when_disabled():
    user, log = _talk(9, SimulatorConfig(error_rate=0.0, contradiction_rate=0.0, blend_rate=0.0))
    assert user.start_genre == user.true_genre
    assert not any(truth["contradiction"] or truth["blend"] for _, truth in log)
