"""Verified preference following on hand-built sessions over the bundled sample catalogue; every expected
value is counted by hand in the comments."""

from __future__ import annotations

import math

import pytest

from crseval.adaptation.following import Following, crs_constraints, wish_topics
from crseval.data.kb import load_kb


@pytest.fixture(scope="module")
def following():
    return Following(load_kb(None))


def turn(k, system, topics, shift=False):
    return {"turn": k, "user": "…", "system": system, "truth": {"shift": shift, "topics": topics}}


SESSION = [
    turn(0, 'Try "The Matrix" (1999).', ["genre:sci-fi"]),  # fits
    turn(
        1, 'How about "Titanic" (1997)?', ["genre:romance"], shift=True
    ),  # shift A followed at once
    turn(
        2, 'You might like "Titanic" (1997).', ["genre:romance", "actor:Ryan Gosling"], True
    ),  # shift B ignored…
    turn(
        3, '"The Notebook" (2004) stars him.', ["genre:romance", "actor:Ryan Gosling"]
    ),  # …followed one turn late
    turn(
        4,
        '"Blade Runner 3000" (2031) is great.',
        ["genre:romance", "actor:Leonardo DiCaprio"],
        True,
    ),  # shift C:
    turn(
        5, 'Or "La La Land" (2016).', ["genre:romance", "actor:Leonardo DiCaprio"]
    ),  # invented, then stale
]


def test_grounding_and_predicates(following):
    rows, invented = following.recommendations('"Blade Runner 3000" (2031) and "Titanic" (1997)')
    assert [following.kb.movies[r].title for r in rows] == ["Titanic"] and invented == 1
    titanic = rows[0]
    assert following.holds(titanic, "genre:romance") and not following.holds(
        titanic, "genre:horror"
    )
    assert following.holds(titanic, "year:1990s") and not following.holds(titanic, "year:2000s")
    assert following.holds(titanic, "actor:Leonardo DiCaprio") and following.holds(
        titanic, "language:English"
    )


def test_followed_ignored_hallucinated_and_stale(following):
    out = following.session(SESSION)
    # shifts A (turn 1), B (turn 2), C (turn 4); next recommendation fits the new constraint only for A
    assert out["follow.follow_rate"] == pytest.approx(1 / 3)
    # wishes: the opening one (sci-fi: The Matrix fits) and A, B, C → 2 of 4
    assert out["follow.wish_rate"] == pytest.approx(2 / 4)
    # A at once (1), B at turn 3 (3 − 2 + 1 = 2), C never before the session ends
    assert out["follow.turns_to_follow"] == pytest.approx(1.5)
    assert out["follow.success"] == 0.0
    # after A (dropped sci-fi): Titanic, not stale; B drops nothing; after C (dropped Gosling): La La Land has
    # Gosling, not DiCaprio → stale. 1 of 2
    assert out["follow.stale_rate"] == pytest.approx(0.5)
    # grounded: Matrix ✓, Titanic ✓, Titanic ✗ (no Gosling), Notebook ✓, La La Land ✗ (no DiCaprio) → 3/5
    assert out["follow.satisfaction"] == pytest.approx(0.6)
    assert out["follow.recommendations"] == 5
    assert out["follow.hallucination_rate"] == pytest.approx(
        1 / 6
    )  # 6 titles named, Blade Runner 3000 invented


def test_every_shift_followed_is_a_success(following):
    session = SESSION[:2] + [
        turn(2, '"The Notebook" (2004).', ["genre:romance", "actor:Ryan Gosling"], True)
    ]
    out = following.session(session)
    assert (
        out["follow.follow_rate"] == 1.0
        and out["follow.success"] == 1.0
        and out["follow.turns_to_follow"] == 1.0
    )


def test_imported_logs_check_only_what_can_be_verified(following):
    turns = [
        {
            "turn": 0,
            "user": "…",
            "system": 'How about "Titanic" (1997)?',
            "constraints": {"genres": ["romance"]},
            "truth": None,
        },
        {
            "turn": 1,
            "user": "…",
            "system": '"The Matrix" (1999), or "Moon Dust 7" (2030).',
            "constraints": {"genre": "horror"},
            "truth": None,
        },
    ]
    out = following.session(turns)
    assert (
        out["follow.crs_constraint_satisfaction"] == 0.5
    )  # Titanic is romance; The Matrix is not horror
    assert out["follow.hallucination_rate"] == pytest.approx(1 / 3)
    assert math.isnan(out["follow.follow_rate"])  # "…": the user's words name no wish to follow
    assert crs_constraints({"genre": "Prison", "actor": "Morgan Freeman", "year": "1982"}) == [
        "genre:prison",
        "actor:Morgan Freeman",
    ]


def test_no_recommendation_and_no_shift(following):
    out = following.session([turn(0, "Tell me more about what you like.", ["genre:drama"])])
    assert out["follow.recommendations"] == 0 and math.isnan(out["follow.hallucination_rate"])
    assert math.isnan(out["follow.follow_rate"]) and math.isnan(out["follow.success"])
    assert out["follow.wish_rate"] == 0  # the opening wish (drama) met with no title: not followed


def test_sessions_in_forked_workers_equal_one_at_a_time(following):
    records = [{"turns": SESSION[:k]} for k in range(1, len(SESSION) + 1)] * 3
    forked = following.sessions(records)
    assert len(forked) == len(records)
    for got, want in zip(forked, (following.session(r["turns"]) for r in records)):
        assert got.keys() == want.keys()
        assert all(got[k] == want[k] or (math.isnan(got[k]) and math.isnan(want[k])) for k in got)


WORDS = [  # the user's words carry the wishes the truth logs: the same session, read two ways
    ("I'd like a sci-fi movie", 'Try "The Matrix" (1999).', ["genre:sci-fi"], False),
    ("Actually, I'd rather watch a romance now.", 'How about "Titanic" (1997)?', ["genre:romance"], True),
    ("Something with Ryan Gosling?", 'You might like "Titanic" (1997).', ["genre:romance", "actor:Ryan Gosling"], True),
    ("Hm, not that one.", '"The Notebook" (2004) stars him.', ["genre:romance", "actor:Ryan Gosling"], False),
]  # fmt: skip


def test_imported_logs_are_read_from_the_users_words_as_the_truth_would_score_them(following):
    logged = [{"turn": k, "user": u, "system": s, "truth": {"shift": sh, "topics": t}} for k, (u, s, t, sh) in enumerate(WORDS)]  # fmt: skip
    imported = [{k: v for k, v in t.items() if k != "truth"} for t in logged]
    read = following.read_wishes(imported)
    assert [sorted(r["topics"]) for r in read] == [sorted(t) for _, _, t, _ in WORDS]
    assert [r["shift"] for r in read] == [sh for *_, sh in WORDS]
    from_words, from_truth = following.session(imported), following.session(logged)
    for k in (
        "follow.follow_rate",
        "follow.satisfaction",
        "follow.turns_to_follow",
        "follow.success",
    ):
        assert from_words[k] == from_truth[k], k
    assert (
        from_words["follow.follow_rate"] == 0.5
    )  # romance followed at once; Gosling one turn late
    assert "follow.crs_constraint_satisfaction" in from_words


def test_wishes_read_from_words_become_the_truths_predicates(following):
    assert wish_topics(
        {"genres": ["comedy"], "year": (1990, 1999), "actor": "Tom Hanks", "keywords": ["heist"]}
    ) == ["genre:comedy", "year:1990s", "actor:Tom Hanks", "plot:heist"]
    assert wish_topics({"year": (None, 1979)}) == ["year:-1979"]
    titanic = following.recommendations('"Titanic" (1997)')[0][0]
    assert following.holds(titanic, "year:1995-") and not following.holds(titanic, "year:-1979")
    assert following.holds(titanic, "year:1997-1997")


def _read(following, *said):
    return following.read_wishes([{"turn": k, "user": u, "system": ""} for k, u in enumerate(said)])


def test_the_first_wish_said_is_the_opening_one_not_a_shift(following):
    """After a greeting or a vague request the wish comes a turn later: the truth logs it as the opening
    wish (no shift), and so does the reading (a shift there made the template CRS follow more from words)."""
    read = _read(
        following, "hi there", "can you recommend a movie?", "comedies please", "now horror"
    )
    assert [r["shift"] for r in read] == [False, False, False, True]
    turns = [
        {"turn": 0, "user": "hey", "system": 'Try "Titanic" (1997).', "truth": {"topics": []}},
        {"turn": 1, "user": "comedies", "system": 'Try "Superbad" (2007).', "truth": {"topics": ["genre:comedy"]}},
    ]  # fmt: skip
    truth = following.session(turns)
    assert truth["follow.wish_rate"] == 1.0 and math.isnan(truth["follow.follow_rate"])
    words = following.session([{k: v for k, v in t.items() if k != "truth"} for t in turns])
    assert words["follow.wish_rate"] == 1.0 and math.isnan(words["follow.follow_rate"])


def test_a_title_is_no_wish_and_a_negation_ends_where_a_new_request_starts(following):
    assert _read(following, "can you describe Die Hard?")[0]["topics"] == []
    for said in (
        "forget thriller what about comedies?",
        "I'm tired of horror recommend a comedy then",
    ):
        assert _read(following, "a thriller please", said)[1]["topics"] == ["genre:comedy"], said


def test_a_film_liked_beside_a_wish_is_read_as_the_reference_and_no_new_wish(following):
    read = _read(following, "action please", "I loved Heat, any thrillers like that?")
    assert read[1]["topics"] == ["genre:thriller", "like:Heat"] and read[1]["shift"]
    read = _read(following, "I want a crime movie", "a crime movie similar to Heat")
    assert read[1]["topics"] == ["genre:crime", "like:Heat"] and not read[1]["shift"]
    assert _read(following, "yes, I liked Heat")[0]["topics"] == []  # no films asked for


def test_a_new_genre_leaves_what_was_said_for_the_old_one(following):
    read = _read(following, "a crime movie similar to Heat", "from the 1990s", "and drama?")
    assert read[1]["topics"] == ["genre:crime", "like:Heat", "year:1990s"]
    assert read[2]["topics"] == ["genre:drama"] and read[2]["shift"]
    assert _read(following, "crime", "drama from the 1990s")[1]["topics"] == [
        "genre:drama",
        "year:1990s",
    ]


@pytest.mark.slow
def test_following_read_from_words_is_the_logged_truths_for_every_reference_crs(monkeypatch):
    """#73's bar, at the run size the validity gate uses (100 users × 12 turns on OpenDialKG): for each CRS
    of known behaviour, the follow rate read from the simulated users' words is within .05 of the one
    their logged truth gives (the template CRS read .113 too high before the first wish said was the
    opening one and a title stopped being a wish)."""
    from pathlib import Path

    from tests.conftest import shared_path

    kb = str(shared_path("opendialkg/opendialkg_movie_data.json"))
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "bench"))
    from following_from_words import follow_rates, sessions

    crs = ["template", "stubborn", "echo", "forgetter", "laggard"]
    _, rates, _ = follow_rates(sessions(100, 12, kb, False, crs), kb)
    assert set(rates["CRS"]) == set(crs)
    assert (rates["Δ"].abs() <= 0.05).all(), rates.to_string()
