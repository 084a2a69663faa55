"""Simulator validity: each measurement against a hand computation."""

import numpy as np
import pytest

from crseval.adaptation.validity import (
    detector_sweep,
    dialogue_act,
    frechet_distance,
    human_likeness,
    leakage,
    shift_following,
)
from crseval.data.kb import load_kb


def turn(user, system="", truth=None, k=0):
    return {"turn": k, "user": user, "system": system, "truth": truth}


@pytest.mark.parametrize(
    "text, act",
    [
        ("Hi there!", "greeting"),
        ("Can you recommend a thriller?", "request"),
        ("Who directed it?", "question"),
        ("I have already seen that one.", "feedback"),
        ("Okay.", "other"),
    ],
)
def test_dialogue_acts(text, act):
    assert dialogue_act(text) == act


def test_leakage_counts_titles_the_crs_had_not_named():
    kb = load_kb(None)  # the bundled catalogue: The Matrix, Inception, Titanic, …
    records = [
        {
            "model": "m",
            "turns": [
                turn("Something like Inception?", "Try The Matrix."),
                turn("The Matrix? Seen it.", "Then Titanic."),
                turn("No.", ""),
            ],
        },
        {"model": "m", "turns": [turn("Hello", "Try Titanic."), turn("Titanic sounds good", "")]},
    ]
    got = leakage(records, kb).iloc[0]
    assert (got["user_turns"], got["leaked_turns"]) == (
        5,
        1,
    )  # only "Inception" came from the user first
    assert got["leak_turn_share"] == pytest.approx(1 / 5)
    assert got["sessions_with_leak"] == pytest.approx(0.5)


def test_shift_following_states_the_new_value_and_spots_a_reversal():
    shift = lambda kind, old, new: {"shift": True, "kind": kind, "from": old, "to": new}  # noqa: E731
    records = [
        {
            "model": "m",
            "turns": [
                turn("a comedy please"),
                turn("Let's switch to horror.", truth=shift("genre", "comedy", "horror")),
                turn("Hmm, a comedy again?"),
                turn("Something from the 1990s", truth=shift("year", None, 1990)),
                turn(
                    "A mix of drama and war?",
                    truth=shift("genre", ["horror"], ["drama", "western"]),
                ),
            ],
        }
    ]
    got = shift_following(records).set_index("kind")
    assert got.loc["genre", "shifts"] == 2
    assert got.loc["genre", "stated_share"] == pytest.approx(
        0.5
    )  # "western" is not in the blend's words
    assert got.loc["genre", "reverted_share"] == pytest.approx(
        0.5
    )  # comedy came back before the next shift
    assert got.loc["year", "stated_share"] == 1.0


def test_frechet_distance_of_shifted_copies_is_the_squared_shift():
    x = np.random.default_rng(0).normal(size=(500, 4))
    assert frechet_distance(x, x) == pytest.approx(0.0, abs=1e-6)
    assert frechet_distance(x, x + np.array([1.0, 2.0, 0, 0])) == pytest.approx(5.0, abs=1e-6)


class _Letters:
    """A 26-dimensional letter-count embedding (small, so the covariance square root is cheap)."""

    name = "letters"

    @staticmethod
    def encode(texts):
        return np.array(
            [[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], float
        )


def test_human_likeness_floor_and_a_simulator_far_from_people():
    human = [
        f"I really liked movie number {i}, do you know something similar?" for i in range(40)
    ] + [f"hello, looking for a film tonight {i}" for i in range(40)]
    sim = {"robot": ["ZZZ QQQ XXX" for _ in range(30)]}
    got = human_likeness(sim, human, _Letters(), seed=0).set_index("source")
    assert got.loc["robot", "unseen_vocabulary"] == 1.0
    assert got.loc["robot", "frechet"] > got.loc["human (split half)", "frechet"]
    assert got.loc["robot", "act_tv_distance"] > got.loc["human (split half)", "act_tv_distance"]


class _Scorer:
    """Similarity: texts sharing the first word are identical (1), others orthogonal (0); topics = {first word}."""

    class similarity:
        @staticmethod
        def encode(texts):
            words = sorted({t.split()[0] for t in texts})
            return np.array([[float(t.split()[0] == w) for w in words] for t in texts])

    class topics:
        @staticmethod
        def extract(texts):
            return [frozenset({t.split()[0]}) for t in texts]


def test_detector_sweep_counts_detections_against_the_logged_shifts():
    t = {"shift": True}
    records = [
        {
            "turns": [
                turn("a x", truth={}),
                turn("a y", truth={}),
                turn("b z", truth=t),
                turn("c z", truth={}),
            ]
        }
    ]
    got = detector_sweep(records, _Scorer(), sims=[0.5], jaccards=[0.0]).iloc[0]
    # consecutive pairs: a→a (same), a→b (the logged shift), b→c (a false alarm)
    assert (got["detected"], got["true"]) == (2, 1)
    assert (got["precision"], got["recall"]) == (0.5, 1.0)


def test_a_genre_is_stated_in_any_word_the_genre_reader_knows_for_it():
    """A shift to comedy is stated by "Comedies please", to romance by "romantic movies"; not by "something different"."""
    shift = {"shift": True, "kind": "genre", "from": "drama"}
    said = ("Comedies please", "Show me some romantic movies now", "Something different now")
    wished = ("comedy", "romance", "comedy")
    records = [
        {"model": "m", "turns": [turn(text, truth=shift | {"to": to})]}
        for text, to in zip(said, wished)
    ]
    assert shift_following(records)["stated_share"].item() == pytest.approx(2 / 3)
