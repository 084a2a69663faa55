"""`judge fit`'s cross-validation groups: users by default, whole systems with ``--cv-groups system``."""

import json

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
