import json

import pytest

from crseval.core.errors import CrsevalError
from crseval.data.judged import load_judged, load_predictions

CONVS = [
    {
        "conv_id": "c1",
        "dial_level_aggregated": {"overall": 4.5, "relevance": 3},
        "dialogue": [
            {"role": "user", "utterance": "hi, a comedy please"},
            {
                "role": "assistant",
                "utterance": "Try Superbad.",
                "turn_level_aggregated": {"relevance": 4},
            },
            {"role": "user", "utterance": "thanks"},
        ],
    },
    {
        "conv_id": "c2",
        "dial_level_aggregated": {"overall": 2},
        "dialogue": [
            {"role": "user", "utterance": "horror?"},
            {
                "role": "system",
                "utterance": "The Notebook.",
                "turn_level_aggregated": {"relevance": 1},
            },
        ],
    },
]


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
    p.write_text(
        json.dumps([{"conv_id": "x", "dialogue": [{"role": "narrator", "utterance": "hi"}]}])
    )
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
    assert all(
        not u.text.startswith(("USER", "SYSTEM")) for it in d.items for u in it.dialogue.utterances
    )


def test_crsarena_eval_layout_as_published(tmp_path):
    convs = [
        {
            "conv_id": f"kbrd_redial_{i}",
            "dial_level_aggregated": {"dialogue_overall": i % 4, "Task_Completion": 1},
            "dialogue": [
                {"role": "USER", "utterance": "hi"},
                {"role": "ASST", "utterance": "hello"},
            ],
        }
        for i in range(3)
    ] + [
        {
            "conv_id": "chatgpt_opendialkg_9",
            "dial_level_aggregated": {"dialogue_overall": 3},
            "dialogue": [{"role": "USER", "utterance": "hi"}, {"role": "ASST", "utterance": "yo"}],
        }
    ]
    p = tmp_path / "eval.json"
    p.write_text(json.dumps(convs))
    d = load_judged(p)
    assert d.aspects == ["dialogue-overall", "task-completion"]  # '_' and case do not matter
    assert list(d.items[0].dialogue.utterances)[1].role.is_recommender
    assert d.observed_scales and d.scale("dialogue-overall") == (0, 3)
    assert d.systems() == {}  # one dialogue of chatgpt_opendialkg is not a system sample
    assert (
        d.groups()["kbrd_redial_1"] == "kbrd_redial_1"
    )  # no systems known: each dialogue is its own group
    convs.append({**convs[-1], "conv_id": "chatgpt_opendialkg_10"})
    p.write_text(json.dumps(convs))
    assert set(load_judged(p).systems().values()) == {"kbrd_redial", "chatgpt_opendialkg"}


def test_systems_when_user_ids_are_uuids(tmp_path):
    convs = [
        {
            "conv_id": f"{crs}_06002459-56ea-4392-9230-36{i:010d}",
            "dial_level_aggregated": {"overall": i},
            "dialogue": [
                {"role": "USER", "utterance": "hi"},
                {"role": "ASST", "utterance": "hello"},
            ],
        }
        for crs in ("barcor_opendialkg", "kbrd_redial")
        for i in range(2)
    ]
    p = tmp_path / "eval.json"
    p.write_text(json.dumps(convs))
    d = load_judged(p)
    assert sorted(set(d.systems().values())) == ["barcor_opendialkg", "kbrd_redial"]
    # cross-validation groups are users: the two systems one user talked to (a battle) share a group
    groups = d.groups()
    assert len(set(groups.values())) == 2
    assert (
        groups[convs[0]["conv_id"]]
        == groups[convs[2]["conv_id"]]
        == "user:06002459-56ea-4392-9230-360000000000"
    )


def test_published_predictions_in_the_face_layout(tmp_path):
    p, q = tmp_path / "eval.json", tmp_path / "face.json"
    p.write_text(json.dumps(CONVS))
    q.write_text(
        json.dumps(
            [
                {
                    "conv_id": "c1",
                    "dial_level_pred": {"Overall": 3.5, "unlabelled": 1},
                    "turns": [{"turn_ind": 1, "turn_level_pred": {"relevance": 0.9}}],
                },
                {"conv_id": "elsewhere", "dial_level_pred": {"overall": 1}, "turns": []},
            ]
        )
    )
    d = load_predictions(q, load_judged(p))
    assert list(d) == ["overall"]  # aspects the labels have, canonical names
    assert (
        d["overall"]["c1"] == 3.5 and d["overall"].isna()["c2"]
    )  # c2 has no prediction: NaN, counted as failed
    t = load_predictions(q, load_judged(p, "turn"))
    assert t["relevance"]["c1#u1"] == 0.9 and t["relevance"].isna()["c2#u1"]
    q.write_text(json.dumps([{"conv_id": "nobody", "dial_level_pred": {"overall": 1}}]))
    with pytest.raises(CrsevalError, match="no dialogue-level prediction matches"):
        load_predictions(q, load_judged(p))
    q.write_text(json.dumps([{"dial_level_pred": {"overall": 1}}]))
    with pytest.raises(CrsevalError, match="no conv_id"):
        load_predictions(q, load_judged(p))


@pytest.mark.parametrize("bad", ["great", None, True, float("inf")])
def test_non_numeric_labels_are_refused_with_the_field(tmp_path, bad):
    p = tmp_path / "c.json"
    labels = {"overall": bad}
    if bad is None:
        labels = "4"  # not an object
    p.write_text(
        json.dumps(
            [
                {
                    "conv_id": "c9",
                    "dial_level_aggregated": labels,
                    "dialogue": [{"role": "user", "utterance": "hi"}],
                }
            ]
        ).replace("Infinity", "1e999")
    )
    with pytest.raises(CrsevalError, match="c9.dial_level_aggregated") as e:
        load_judged(p)
    assert str(p) in str(e.value)


def test_arena_dialogue_layout(tmp_path):
    convs = [
        {
            "conversation ID": f"{crs}_{u}",
            "agent": {"id": crs},
            "user": {"id": u},
            "conversation": [
                {"participant": "USER", "utterance": "a comedy?", "utterance ID": 0},
                {"participant": "AGENT", "utterance": "Try Airplane!", "utterance ID": 1},
            ],
            "metadata": {"sentiment": s},
        }
        for crs, u, s in [
            ("kbrd_redial", "u1", "satisfied"),
            ("kbrd_redial", "u2", "frustrated"),
            ("unicrs_redial", "u1", "frustrated"),
            ("unicrs_redial", "u3", "frustrated"),
        ]
    ]
    p = tmp_path / "crs_arena_dial_open.json"
    p.write_text(json.dumps(convs))
    d = load_judged(p)
    assert [it.labels["satisfied"] for it in d.items] == [1, 0, 0, 0]
    assert d.scale("satisfied") == (0, 1)
    assert d.systems()["kbrd_redial_u2"] == "kbrd_redial"
    convs[0]["metadata"]["sentiment"] = "meh"
    p.write_text(json.dumps(convs))
    with pytest.raises(CrsevalError, match="kbrd_redial_u1.metadata.sentiment"):
        load_judged(p)


def test_uss_redial_levels(shared):
    path = shared("judgments/uss_redial")
    d, t = load_judged(path, "dialogue"), load_judged(path / "ReDial.txt", "turn")
    assert len(d) == 1000 and d.aspects == ["dialogue-overall"]
    first = d.items[0]  # the OVERALL line is the label (4,5,4,4), never an utterance
    assert first.labels["dialogue-overall"] == pytest.approx(4.25)
    assert all(u.text != "OVERALL" for u in first.dialogue.utterances)
    assert t.aspects == ["satisfaction"]
    it = t.items[0]  # "hello!" rated by the user's next turn (3,3,4,3)
    utts = list(it.dialogue.utterances)
    assert utts[it.target].text == "hello!" and it.labels["satisfaction"] == pytest.approx(3.25)
    assert "?" in " ".join(
        u.text for its in d.items[:20] for u in its.dialogue.utterances
    )  # %3F unescaped


def test_uss_ratings_outside_the_scale_name_the_line(tmp_path):
    p = tmp_path / "ReDial.txt"
    p.write_text("USER\thi\t\t3,3\nSYSTEM\thello\t\t\nUSER\tOVERALL\t\t3,9\n")
    with pytest.raises(CrsevalError, match=r"ReDial.txt:3.*OVERALL"):
        load_judged(p)


def test_the_bundled_sample_is_labelled_with_its_raters_mean():
    """`judge meta-eval sample`: each bundled dialogue, labelled per dimension with the mean of its raters
    (checked against the CSV read by hand)."""
    import csv

    from crseval.data.bundled import sample_dir

    rows = list(csv.DictReader(open(sample_dir() / "ratings.csv")))
    s01 = [float(r["satisfaction"]) for r in rows if r["item"] == "s01"]
    judged = load_judged("sample")
    assert len(judged.items) == 8 and judged.aspects == ["engagement", "relevance", "satisfaction"]
    item = next(it for it in judged.items if it.id == "s01")
    assert item.labels["satisfaction"] == pytest.approx(sum(s01) / len(s01))
    assert judged.scale("satisfaction") == (1, 5)
    with pytest.raises(CrsevalError, match="per dialogue"):
        load_judged("sample", "turn")
