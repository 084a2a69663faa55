import pytest

from crseval.behavior.explicit import (
    TransitionModel,
    dialogue_stats,
    entropy_weighted_ba,
    explicit_ba,
    strategy_distribution,
    turn_labels,
)
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.strategies import DEFINITIONS, LABELS, STRATEGIES, describe

R, S = Role.RECOMMENDER, Role.SEEKER


def test_taxonomy_has_13_strategies_with_definitions():
    assert len(STRATEGIES) == 13
    assert LABELS[-1] == "no_strategy"
    assert all(DEFINITIONS[s].definition and len(DEFINITIONS[s].examples) >= 2 for s in LABELS)
    assert "opinion_inquiry:" in describe()


def test_ba_by_hand():
    # two dialogues with 3 and 2 recommender turns
    human = [
        [["no_strategy"], ["opinion_inquiry"], ["credibility"]],
        [["offer_help"], ["similarity"]],
    ]
    system = [
        [["offer_help"], ["opinion_inquiry"], ["personal_opinion"]],
        [["offer_help"], ["similarity"]],
    ]
    # counted turns: k = 2..N → (opinion_inquiry ✓, credibility ✗) + (similarity ✓) = 2 hits of 3 counted;
    # the published formula divides by all N = 5 turns
    assert explicit_ba(system, human) == pytest.approx(2 / 5)
    assert explicit_ba(system, human, normalise="counted") == pytest.approx(2 / 3)
    assert explicit_ba(human, human, normalise="counted") == 1.0
    assert explicit_ba(human, human) == pytest.approx(
        3 / 5
    )  # a perfect system scores (N − D) / N as written


def test_turn_label_any_mode():
    human = [[["x"], ["credibility", "encouragement"]]]
    system = [[["x"], ["encouragement"]]]
    assert explicit_ba(system, human, normalise="counted") == 0.0
    assert explicit_ba(system, human, normalise="counted", turn_label="any") == 1.0


def test_mismatched_lengths_are_clear_errors():
    with pytest.raises(CrsevalError, match="system turns"):
        explicit_ba([[["a"]]], [[["a"], ["b"]]])


def test_transition_model_and_entropy_weighting():
    middle = ["opinion_inquiry", "similarity", "offer_help", "experience_inquiry"]
    seqs = [["no_strategy", x, "credibility"] for x in middle] * 10
    m = TransitionModel.fit(seqs, order=1, alpha=0.01)
    # after a greeting humans do one of four things (≈ 2 bits); after that they always give credibility
    assert m.entropy(["no_strategy", "opinion_inquiry"]) < 0.2 < 1.9 < m.entropy(["no_strategy"])
    p = m.distribution(["no_strategy"])
    assert p.sum() == pytest.approx(1)
    assert p[LABELS.index("similarity")] == pytest.approx(p[LABELS.index("offer_help")])
    human = [[[x] for x in seqs[0]]]
    late_miss = [[["no_strategy"], ["opinion_inquiry"], ["similarity"]]]
    early_miss = [[["no_strategy"], ["similarity"], ["credibility"]]]
    # a mismatch where humans are predictable (late) costs more than where they are not (early)
    assert entropy_weighted_ba(late_miss, human, m) < entropy_weighted_ba(early_miss, human, m)
    w1, w2 = (
        1 / max(m.entropy(["no_strategy"]), 0.1),
        1 / max(m.entropy(["no_strategy", "opinion_inquiry"]), 0.1),
    )
    assert entropy_weighted_ba(late_miss, human, m) == pytest.approx(w1 / (w1 + w2))


def test_the_entropy_floor_and_smoothing_are_the_declared_parameters(monkeypatch):
    import dataclasses

    from crseval.core import registry

    seqs = [["no_strategy", x, "credibility"] for x in ("similarity", "offer_help")] * 5
    human = [[[x] for x in seqs[0]]]
    system = [[["no_strategy"], ["similarity"], ["offer_help"]]]
    m = TransitionModel.fit(seqs, order=1)
    assert m.alpha == 1.0  # entropy_ba(alpha=1.0, h_min=0.1), as declared
    assert entropy_weighted_ba(system, human, m) == pytest.approx(
        entropy_weighted_ba(system, human, m, h_min=0.1)
    )
    declared = registry.get_metric("entropy_ba", "behavior")
    changed = dataclasses.replace(declared, params={"h_min": 5.0, "alpha": 2.0})
    monkeypatch.setitem(registry.METRICS, declared.qualified, changed)
    assert TransitionModel.fit(seqs, order=1).alpha == 2.0
    assert entropy_weighted_ba(system, human, m) == pytest.approx(
        entropy_weighted_ba(system, human, m, h_min=5.0)
    )


def test_dialogue_stats_turns_before_first_recommendation():
    d = Dialogue.from_utterances(
        "d",
        [
            Utterance(R, "hi", "no_strategy"),
            Utterance(S, "hello"),
            Utterance(R, "what do you like?", "opinion_inquiry"),
            Utterance(S, "comedy"),
            Utterance(R, "try Superbad", "credibility", ["Superbad (2007)"]),
        ],
        {"outcome": "accept_rating_good", "accepted": True},
    )
    none = Dialogue.from_utterances("e", [Utterance(R, "hi", "no_strategy")], {"accepted": False})
    s = dialogue_stats([d, none]).set_index("dialogue")
    assert s.loc["d", "turns_before_first_rec"] == 2
    assert s.loc["e", "turns_before_first_rec"] == 1
    assert not s.loc["e", "recommended"]
    dist = strategy_distribution([d])
    assert dist.sum() == pytest.approx(1)
    assert dist["credibility"] == pytest.approx(1 / 3)
    assert turn_labels(d) == [["no_strategy"], ["opinion_inquiry"], ["credibility"]]


def test_sentence_level_ba_by_hand():
    from crseval.behavior.explicit import sentence_match, split_sentences, strategy_set

    assert split_sentences("Have you seen Heat (1995)? It is great!  Watch it.") == [
        "Have you seen Heat (1995)?",
        "It is great!",
        "Watch it.",
    ]
    assert split_sentences("no punctuation here") == ["no punctuation here"]
    assert strategy_set(["no_strategy", "credibility", "credibility"]) == {"credibility"}
    assert strategy_set(["no_strategy", ""]) == {"no_strategy"}
    assert sentence_match(["credibility", "encouragement"], ["credibility", "no_strategy"]) == 0.5
    assert sentence_match(["no_strategy"], ["no_strategy"]) == 1.0
    assert sentence_match(["no_strategy"], ["acknowledgment"]) == 0.0
    assert sentence_match([], ["acknowledgment"]) == 0.0
