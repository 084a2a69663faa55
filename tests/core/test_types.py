import pandas as pd
import pytest

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Ratings, Role, Utterance


def test_consecutive_same_role_utterances_form_one_turn():
    utts = [
        Utterance(Role.RECOMMENDER, "hi", "no_strategy"),
        Utterance(Role.RECOMMENDER, "what do you like?", "opinion_inquiry"),
        Utterance(Role.SEEKER, "comedies"),
        Utterance(Role.RECOMMENDER, "try Superbad"),
    ]
    d = Dialogue.from_utterances("d1", utts)
    assert [t.role for t in d.turns] == [Role.RECOMMENDER, Role.SEEKER, Role.RECOMMENDER]
    assert d.turns[0].strategies == ["no_strategy", "opinion_inquiry"]
    assert d.turns[0].text == "hi what do you like?"
    assert len(list(d.utterances)) == 4


@pytest.mark.parametrize(
    "name,role",
    [
        ("User", Role.USER),
        ("SYSTEM", Role.SYSTEM),
        ("assistant", Role.SYSTEM),
        ("Seeker", Role.SEEKER),
        (" recommender ", Role.RECOMMENDER),
    ],
)
def test_role_parse_is_lenient_in_names(name, role):
    assert Role.parse(name) is role


def test_role_parse_rejects_unknown():
    with pytest.raises(CrsevalError, match="unknown speaker role"):
        Role.parse("narrator")


def _ratings(values, scale=(1, 5)):
    rows = [("i1", "a", "q", values[0]), ("i1", "b", "q", values[1]), ("i2", "a", "q", values[2])]
    return Ratings(pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]), scale)


def test_ratings_summary_harmonic_k_by_hand():
    r = _ratings([1, 2, 3])
    # items have 2 and 1 raters: harmonic mean = 2 / (1/2 + 1/1) = 4/3
    assert "harmonic mean 1.33" in r.summary()["raters per item"]
    assert r.wide("q").loc["i1", "b"] == 2


def test_ratings_refuse_values_off_the_scale():
    with pytest.raises(CrsevalError, match="outside the scale"):
        _ratings([1, 6, 3])


def test_ratings_per_dimension_scales():
    rows = [("i1", "a", "eff", 0), ("i1", "a", "overall", 5)]
    r = Ratings(
        pd.DataFrame(rows, columns=["item", "rater", "dimension", "value"]),
        {"eff": (0, 1), "overall": (1, 5)},
    )
    assert r.scale_of("eff") == (0, 1)
    with pytest.raises(CrsevalError):
        Ratings(
            pd.DataFrame([("i1", "a", "eff", 2)], columns=["item", "rater", "dimension", "value"]),
            {"eff": (0, 1)},
        )
