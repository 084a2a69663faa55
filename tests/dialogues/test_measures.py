"""Dialogue metrics on hand-built dialogues, checked against hand computations and scipy."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval.core.types import Dialogue, Item, Role, Utterance
from crseval.data.any_dialogues import DialogueSource, SourcedDialogue
from crseval.data.io import DatasetInfo
from crseval.dialogues.job import label_correlations
from crseval.dialogues.measures import dialogue_table, ground, popularity, system_table
from crseval.text.titles import TitleMatcher

ITEMS = [
    Item("a", "Alien (1979)", {"year": 1979, "genres": ["horror", "sci-fi"]}),
    Item("b", "Heat (1995)", {"year": 1995, "genres": ["crime", "thriller"]}),
    Item("c", "Up (2009)", {"year": 2009, "genres": ["animation", "comedy"]}),
    Item("d", "Se7en (1995)", {"year": 1995, "genres": ["crime", "thriller"]}),
]
U, S = Role.USER, Role.SYSTEM


def _dialogue(did, *turns):
    return Dialogue.from_utterances(did, [Utterance(r, t) for r, t in turns])


@pytest.fixture
def source():
    one = _dialogue(
        "d1",
        (U, "Something scary?"),
        (S, "How about Alien (1979)?"),
        (U, "Seen it already."),
        (S, "Then Heat (1995) or Alien (1979) again, or Zorblax (2020)."),
        (U, "I loved Se7en (1995)."),
        (S, "Se7en (1995) is great. Up (2009) is lighter."),
    )
    two = _dialogue("d2", (U, "hi"), (S, "What do you like?"), (U, "crime"), (S, "Heat (1995)!"))
    return DialogueSource(
        DatasetInfo("toy", "toy", "0"),
        "toy",
        [
            SourcedDialogue(one, "sys-A", {"overall": 2.0}),
            SourcedDialogue(two, "sys-B", {"overall": 4.0}),
        ],
    )


def test_turn_rows_count_repeats_rejections_and_ungrounded(source):
    turns, _ = ground(source, TitleMatcher(ITEMS), labelled=False)
    d1 = turns[turns["dialogue"] == "d1"].set_index("turn")
    assert d1["recommendations"].tolist() == [1, 3, 2]
    assert d1["out_of_catalogue"].tolist() == [0, 1, 0]  # Zorblax (2020)
    assert d1["repeated"].tolist() == [0, 1, 1]  # Alien again; Se7en named by the user
    assert d1["rejected_repeats"].tolist() == [0, 1, 0]  # "Seen it already" after Alien
    assert d1.loc[2, "titles"] == ["Heat", "Alien", "Zorblax"]


def test_dialogue_and_system_tables_by_hand(source):
    m = TitleMatcher(ITEMS)
    turns, _ = ground(source, m, labelled=False)
    counts, n = popularity([(source.dialogues, False)], m)
    assert n == 2 and counts == {"a": 1, "b": 2, "c": 1, "d": 1}
    table = dialogue_table(
        turns, m.items, (counts, n), lambda ids: np.eye(4)[["abcd".index(i) for i in ids]]
    )
    d1 = table.set_index("dialogue").loc["d1"]
    assert d1["recommendations"] == 6 and d1["out_of_catalogue_rate"] == pytest.approx(1 / 6)
    assert d1["repetition_rate"] == pytest.approx(2 / 6) and d1[
        "rejected_repeat_rate"
    ] == pytest.approx(1 / 6)
    # novelty: mean −log2((df+1)/(n+1)) over the 5 grounded recommendations a, b, a, d, c
    info = {k: -math.log2((v + 1) / 3) for k, v in counts.items()}
    assert d1["novelty"] == pytest.approx(np.mean([info[i] for i in "abadc"]))
    # genre diversity over distinct items a, b, d, c: pairwise Jaccard distances by hand (b and d share both genres)
    assert d1["genre_diversity"] == pytest.approx((1 + 1 + 1 + 0 + 1 + 1) / 6)
    assert d1["embedding_diversity"] == pytest.approx(1.0)  # orthogonal embeddings
    assert d1["distinct_items"] == 4 and d1["first_rec_turn"] == 1
    d2 = table.set_index("dialogue").loc["d2"]
    assert d2["first_rec_turn"] == 2 and np.isnan(d2["genre_diversity"])
    assert (
        d1["recommending_turns"] == 1 and d2["recommending_turns"] < 1
    )  # d2's first reply names none
    systems = system_table(table, turns, len(ITEMS)).set_index("system")
    assert systems.loc["sys-A", "coverage"] == 1.0 and systems.loc["sys-B", "coverage"] == 0.25


def test_system_intervals_are_t_intervals():
    rows = pd.DataFrame(
        {
            "system": ["s"] * 5,
            "dialogue": list("vwxyz"),
            "recommendations": [1] * 5,
            "out_of_catalogue_rate": [0.0, 0.1, 0.2, 0.4, 0.3],
        }
    )
    for c in (
        "repetition_rate",
        "rejected_repeat_rate",
        "novelty",
        "genre_diversity",
        "embedding_diversity",
        "distinct_items",
        "recommending_turns",
        "first_rec_turn",
    ):
        rows[c] = 1.0
    turns = pd.DataFrame({"system": ["s"], "items": [["x"]]})
    row = system_table(rows, turns, 10).iloc[0]
    lo, hi = stats.t.interval(0.95, 4, loc=0.2, scale=stats.sem([0.0, 0.1, 0.2, 0.4, 0.3]))
    assert (row["out_of_catalogue_rate_lo"], row["out_of_catalogue_rate_hi"]) == pytest.approx(
        (lo, hi)
    )
    assert row["coverage"] == 0.1


def test_label_correlations_match_scipy():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"system": rng.choice(list("abcde"), 60), "overall": rng.normal(size=60)})
    for c in (
        "recommendations",
        "out_of_catalogue_rate",
        "repetition_rate",
        "rejected_repeat_rate",
        "novelty",
        "genre_diversity",
        "embedding_diversity",
        "distinct_items",
        "recommending_turns",
        "first_rec_turn",
    ):
        frame[c] = frame["overall"] + rng.normal(size=60)
    corr = label_correlations(frame, ["overall"]).set_index(["level", "metric"])
    assert corr.loc[("dialogue", "novelty"), "spearman_rho"] == pytest.approx(
        stats.spearmanr(frame["novelty"], frame["overall"])[0]
    )
    means = frame.groupby("system").mean(numeric_only=True)
    assert corr.loc[("system", "novelty"), "spearman_rho"] == pytest.approx(
        stats.spearmanr(means["novelty"], means["overall"])[0]
    )
    assert (corr["spearman_rho_lo"] <= corr["spearman_rho"]).all()
    dial = corr.loc["dialogue"]
    p = np.sort(dial["p"].to_numpy())  # Holm by hand: running max of (m - i) · p_(i), capped at 1
    holm = np.minimum(1, np.maximum.accumulate([(len(p) - i) * v for i, v in enumerate(p)]))
    assert np.sort(dial["p_holm"].to_numpy()) == pytest.approx(holm)


def test_the_reaction_reader_reads_plain_refusals_and_complaints_and_not_a_yes():
    from crseval.text.reactions import refused

    for said in (
        "meh",
        "No.",
        "not that one",
        "none of those sound good",
        "I asked for comedy movies",
        "you already told me that",
        "Alien again?",
        "Didn't you recommend Alien already?",
        "Those don't sound like horror movies",
    ):
        assert refused(said), said
    for said in (
        "yes please",
        "no way, I love it!",
        "what is it about?",
        "again, thanks",
        "any horror?",
    ):
        assert not refused(said), said


def test_answering_a_question_about_a_film_is_not_a_repeat_and_a_surname_is_not_a_film():
    matcher = TitleMatcher(
        ITEMS + [Item("r", "Rebecca (1940)", {"year": 1940, "genres": ["drama"]})]
    )
    turns = [
        (Role.SYSTEM, "How about Heat (1995)?"),
        (Role.USER, "Who stars in Heat?"),
        (Role.SYSTEM, "Heat stars Al Pacino. And Alien (1979)?"),
        (Role.USER, "I loved Heat"),
        (Role.SYSTEM, "Then watch Heat (1995) again!"),  # said unasked: a repeat
        (Role.USER, "Is Rebecca Budig in it?"),
        (Role.SYSTEM, "No."),
    ]
    from crseval.dialogues.measures import walk

    d = Dialogue.from_utterances("d", [Utterance(r, t) for r, t in turns])
    rows, named = walk(SourcedDialogue(d, "s"), matcher, labelled=False)
    assert [r["repeated"] for r in rows] == [0, 0, 1, 0]
    assert "r" not in named  # the actress Rebecca Budig, not the 1940 film
