"""`judge fit`'s cross-validation groups: users by default, whole systems with ``--cv-groups system``;
the shipped judges know the items they were fitted on."""

import json

import pytest

from crseval.data.io import DatasetInfo
from crseval.data.judged import load_judged
from crseval.data.judged_types import JudgedSet
from crseval.judge.calibrated import CalibratedJudge, item_hash
from crseval.judge.fit import _load


def test_cv_groups_are_users_or_whole_systems(tmp_path):
    convs = [
        {
            "conv_id": f"{system}_redial_user{u}",
            "dial_level_aggregated": {"dialogue_overall": 1},
            "dialogue": [
                {"role": "USER", "utterance": "hi"},
                {"role": "ASST", "utterance": "hello"},
            ],
        }
        for u in range(3)
        for system in ("kbrd", "barcor")
    ]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(convs))
    (users,) = _load([str(path)], "dialogue", None, 0, "train")
    (systems,) = _load([str(path)], "dialogue", None, 0, "train", "system")
    assert {it.group for it in users.items} == {f"train0:user:user{u}" for u in range(3)}
    assert {it.group for it in systems.items} == {"train0:kbrd_redial", "train0:barcor_redial"}


@pytest.mark.parametrize(
    "name, paths, limit",
    [
        ("default", ["judgments/crsarena_eval/crs_arena_eval_train.json"], None),
        ("crsarena", ["judgments/crsarena_eval/crs_arena_eval_train.json"], None),
        ("redial", ["judgments/ab_redial", "judgments/uss_redial"], 195),
    ],
)
def test_a_shipped_judge_knows_every_dialogue_it_was_fitted_on(shared, name, paths, limit):
    """Its item hashes are exactly those of the items `judge fit` drew from its training files (the
    README's commands); the rest of USS-ReDial, which it never saw, is not counted."""
    judge = CalibratedJudge.load(name)
    sets = _load([str(shared(p)) for p in paths], "dialogue", limit, 0, "train")
    assert [{"data": s.info.signature(), "n": len(s.items)} for s in sets] == judge.trained_on
    assert sorted({item_hash(it) for s in sets for it in s.items}) == judge.trained_items
    if name == "redial":
        everything = load_judged(shared(paths[1]), "dialogue")
        other = JudgedSet(DatasetInfo("renamed", "-", "x"), "dialogue")
        assert len(everything.items) - len(judge.unseen(other, everything.items)) == 195
