"""The panel of discriminators: masking, repeats by hand, and each member on users that differ in one way."""

import numpy as np
import pandas as pd
import pytest

from crseval.adaptation import discriminators as D
from crseval.adaptation.realism import UserDialogue
from crseval.data.kb import load_kb
from crseval.text.titles import TitleMatcher


@pytest.fixture(scope="module")
def matcher():
    return TitleMatcher(load_kb().movies)


class HashEmbedder:
    """Bag-of-words vectors: sentences with other words land elsewhere (a stand-in for MiniLM)."""

    def encode(self, texts):
        out = np.zeros((len(texts), 64))
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % 64] += 1.0
        return out


def test_titles_names_and_numbers_are_masked(matcher):
    title = load_kb().movies[0].title
    masked = D.mask(f"i loved {title} with Tom Hanks from 1995, more like it", matcher)
    assert title not in masked and "TITLE" in masked
    assert "Tom Hanks" not in masked and "NAME" in masked
    assert "1995" not in masked and "NUM" in masked
    assert D.mask("hi there", matcher) == "hi there"


def test_repeats_count_turns_said_in_another_dialogue_by_hand(matcher):
    dialogues = [
        UserDialogue("a", "u1", "x", ["Hi!", "a comedy please", "thanks"]),
        UserDialogue("b", "u2", "x", ["hi", "something scary", "thanks"]),
        UserDialogue("c", "u3", "x", ["a comedy please", "a comedy please"]),
    ]
    row = D.repeats({"x": dialogues}, matcher).iloc[0]
    # "hi" (2 turns), "thanks" (2), "a comedy please" (3: dialogues a and c) repeat; "something scary" does not
    assert (row["dialogues"], row["turns"]) == (3, 8)
    assert row["repeated_share"] == pytest.approx(7 / 8)


def _users(prefix, n, phrases, rng):
    return [
        UserDialogue(f"{prefix}{i}", f"{prefix}:{i}", prefix, list(rng.choice(phrases, size=6)))
        for i in range(n)
    ]


def test_the_panel_tells_apart_users_who_word_things_differently_and_not_those_who_do_not(
    matcher,
):
    rng = np.random.default_rng(0)
    real_words = ["any good comedy", "not that one", "i like it", "something older?", "ok thanks"]
    other_words = [
        "Kindly provide a comedy film.",
        "That is unsuitable.",
        "Acceptable.",
        "Older, please.",
    ]
    real = _users("r", 60, real_words, rng)
    panel = D.panel(
        {"same": _users("s", 60, real_words, rng), "other": _users("o", 60, other_words, rng)},
        real,
        HashEmbedder(),
        matcher,
        n_boot=200,
    )
    assert list(panel["member"].unique()) == [m.name for m in D.MEMBERS]
    auc = panel.set_index(["source", "member"])["discriminator_auc"]
    for m in D.MEMBERS:
        # the shape reads only length and questions, which the wording changes less
        assert auc["other", m.name] > (0.8 if m.reads == "shape" else 0.95), m
        assert auc["same", m.name] < 0.7, m  # the same phrases: nothing to tell
    worst = D.worst(panel).set_index("source")
    assert worst.loc["other", "discriminator_auc"] == auc["other"].max()
    assert set(worst.index) == {"human (split half)", "same", "other"}


def test_a_human_source_inside_the_reference_is_read_against_the_rest_of_it(matcher):
    # one crowd of a two-crowd reference: against the whole reference its own dialogues would sit on both
    # sides; against the other crowd the wording tells them apart as it would two separate sources
    rng = np.random.default_rng(0)
    plain = _users("p", 40, ["any good comedy", "not that one", "ok thanks"], rng)
    formal = _users("f", 40, ["Kindly provide a comedy film.", "That is unsuitable."], rng)
    panel = D.panel(
        {}, plain + formal, HashEmbedder(), matcher, others={"formal": formal}, n_boot=200
    )
    rows = panel[panel["source"] == "formal"].set_index("member")
    dialogue = rows.loc["n-grams · dialogue"]
    assert (dialogue["units"], dialogue["real_units"]) == (40, 40)  # the 40 plain dialogues only
    assert rows.loc["n-grams · turn", "real_units"] == 40 * 6
    assert (rows["discriminator_auc"] > 0.95).all()


def test_worst_keeps_the_highest_auc_per_source():
    d = pd.DataFrame(
        {
            "source": ["a", "a", "b", "b"],
            "member": ["m1", "m2", "m1", "m2"],
            "discriminator_auc": [0.6, 0.8, 0.9, 0.7],
        }
    )
    w = D.worst(d)
    assert list(w["source"]) == ["a", "b"] and list(w["member"]) == ["m2", "m1"]
