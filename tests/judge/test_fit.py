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


@pytest.mark.slow
def test_a_remote_llm_fits_the_judge_it_allows_and_is_measured_leave_one_system_out(
    shared, tmp_path
):
    """An OpenAI-compatible server (a local stand-in: no real server is reachable here, so what a larger
    model gains is not measured) answers the judge's question with digit log-probabilities; it gives no
    hidden states, so `--llm-states` is refused before any call, and the design it allows — the question
    with the turn model on the replies' embeddings — is fitted and scored per held-out CRS."""
    from crseval.testing.fake_server import FakeOpenAIServer
    from tests.support.cli import crseval

    data = shared("judgments/crsarena_eval/crs_arena_eval_train.json")
    with FakeOpenAIServer() as srv:
        remote = ("--backend", "openai", "--base-url", srv.base_url, "--model", "stand-in")
        common = (
            "judge", "fit", data, "--questions", "dialogue-overall", "--turn-model", "--no-rules",
            "--cv-groups", "system", "--limit", "90", "--n-boot", "100", *remote,
        )  # fmt: skip
        refused = crseval(*common, "--llm-states", "--out", tmp_path / "states", check=False)
        assert refused.returncode != 0 and "hidden states" in refused.stderr
        assert srv.requests == 0
        crseval(*common, "--out", tmp_path / "run")
        assert srv.requests == 90
    import pandas as pd

    held = pd.read_parquet(tmp_path / "run" / "tables" / "judge_fit_held_out.parquet")
    design = "calibrated (LLM + turn model)"
    assert design in set(held["judge"])
    pooled = held[(held["judge"] == design) & (held["system"] == "all (pooled)")]
    assert len(pooled) == len(set(held["aspect"])) and pooled["n"].min() > 80
    assert held["system"].nunique() == 10  # the nine CRSs, each held out, and pooled
