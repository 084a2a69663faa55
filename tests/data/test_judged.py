import json

import pytest

from crseval.core.errors import CrsevalError
from crseval.data.judged import load_judged

CONVS = [{"conv_id": "c1", "dial_level_aggregated": {"overall": 4.5, "relevance": 3},
          "dialogue": [{"role": "user", "utterance": "hi, a comedy please"},
                       {"role": "assistant", "utterance": "Try Superbad.", "turn_level_aggregated": {"relevance": 4}},
                       {"role": "user", "utterance": "thanks"}]},
         {"conv_id": "c2", "dial_level_aggregated": {"overall": 2},
          "dialogue": [{"role": "user", "utterance": "horror?"},
                       {"role": "system", "utterance": "The Notebook.", "turn_level_aggregated": {"relevance": 1}}]}]


def test_json_layout_dialogue_and_turn_level(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(CONVS))
    d = load_judged(p, "dialogue")
    assert [it.id for it in d.items] == ["c1", "c2"]
    assert d.items[0].labels == {"overall": 4.5, "relevance": 3.0}
    t = load_judged(p, "turn")
    assert [it.id for it in t.items] == ["c1#u1", "c2#u1"]
    assert t.items[0].target == 1
    assert len(list(t.items[0].dialogue.utterances)) == 2  # context up to the judged response only


def test_json_errors_name_the_field(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps([{"conv_id": "x", "dialogue": [{"role": "narrator", "utterance": "hi"}]}]))
    with pytest.raises(CrsevalError, match="x.dialogue\\[0\\].role"):
        load_judged(p)


def test_ab_redial_levels(shared):
    folder = shared("judgments/ab_redial")
    d, t = load_judged(folder, "dialogue"), load_judged(folder, "turn")
    assert len(d) == 195
    assert "efficiency" in d.aspects
    assert len(t) >= 580
    assert set(t.aspects) == {"relevance", "interestingness", "overall"}
    first = t.items[0]
    assert first.target == 2
    assert list(first.dialogue.utterances)[2].role.is_recommender
    # em-space separated cells ("USER \u2003 Hi") are parsed, not rejected
    assert all(not u.text.startswith(("USER", "SYSTEM")) for it in d.items for u in it.dialogue.utterances)
