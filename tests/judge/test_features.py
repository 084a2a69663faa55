"""Rule-read transcript evidence, checked against hand counts."""

import numpy as np
import pytest

from crseval.core.types import Dialogue, Role, Utterance
from crseval.judge.features import NAMES, transcript_features, turn_evidence


def _dialogue():
    u, s = Role.USER, Role.SYSTEM
    return Dialogue.from_utterances(
        "d",
        [
            Utterance(u, "Hi! Any good horror movies?"),
            Utterance(s, 'Have you seen "It (2017)"?'),
            Utterance(u, "I've seen it already."),
            Utterance(s, 'Then try "Insidious (2010)".'),
            Utterance(u, "Sounds good, thanks!"),
            Utterance(s, 'Then try "Insidious (2010)".'),
            Utterance(u, "I already said thanks?"),
        ],
    )


def test_turn_evidence_reads_recommendations_and_reactions():
    ev = turn_evidence(_dialogue())
    assert [e["turn"] for e in ev] == [1, 3, 5]
    assert [e["items"] for e in ev] == [["it (2017)"], ["insidious (2010)"], ["insidious (2010)"]]
    assert [e["seen"] for e in ev] == [True, False, False]
    assert [e["accepted"] for e in ev] == [False, True, True]  # "thanks" in the last turn too
    assert [e["repeats"] for e in ev] == [False, False, True]
    assert [e["frustrated"] for e in ev] == [False, False, True]
    assert [e["asks"] for e in ev] == [True, False, False]


def test_transcript_features_by_hand():
    d = _dialogue()
    f = dict(zip(NAMES, transcript_features(d)))
    texts = [u.text for u in d.utterances]
    assert f["log_chars"] == pytest.approx(np.log1p(sum(map(len, texts))))
    assert f["turns"] == 7
    assert f["recommendations"] == 3 and f["rec_per_turn"] == 1
    assert f["distinct_rec_share"] == pytest.approx(2 / 3)
    assert f["first_rec_position"] == 0
    assert f["seen_rate"] == pytest.approx(1 / 3)
    assert f["accept_rate"] == pytest.approx(2 / 3)
    assert f["frustrated_rate"] == pytest.approx(1 / 4)
    assert f["user_question_rate"] == pytest.approx(2 / 4)
    assert f["assistant_question_rate"] == pytest.approx(1 / 3)
    assert f["repeated_reply_share"] == pytest.approx(1 / 3)
    assert f["ends_positive"] == 1


def test_a_dialogue_without_recommendations():
    d = Dialogue.from_utterances("e", [Utterance(Role.USER, "hello"), Utterance(Role.SYSTEM, "hi")])
    f = dict(zip(NAMES, transcript_features(d)))
    assert (
        f["recommendations"] == 0 and f["distinct_rec_share"] == 1 and f["first_rec_position"] == 1
    )
    assert f["short_reply_share"] == 1
