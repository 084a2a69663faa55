"""The study file: the example loads, the built-in questionnaire asks what the reliability preset reads,
and the arms a study assigns."""

from pathlib import Path

from crseval.data.ratings import CRS_QUE_DIMENSIONS
from crseval.study.config import CRS_QUE, load_study, study_from

ROOT = Path(__file__).resolve().parents[2]


def test_the_built_in_items_are_crs_ques_dimensions_in_its_order():
    assert tuple(CRS_QUE) == CRS_QUE_DIMENSIONS


def test_the_example_study_loads_with_counterbalanced_pairs_and_a_shared_target():
    config = load_study(ROOT / "examples" / "study.toml")
    assert config.arms == [("my_crs", "template"), ("template", "my_crs")]
    assert config.arm_target() == 15 and Path(config.folder) == ROOT / "examples"
    ids = [i.id for i in config.questionnaire.all_items()]
    assert ids[-2:] == ["sentiment", "feedback"] and "attention" in ids and "annoying" in ids
    assert config.default_db().endswith("examples/my-crs-study.sqlite")


def test_the_config_hash_changes_with_what_participants_see_and_not_with_the_folder(tmp_path):
    base = {"name": "x", "systems": [{"name": "a", "target": "template"}]}
    one, moved = study_from(base, tmp_path), study_from(base, tmp_path / "elsewhere")
    assert one.digest == moved.digest
    assert study_from({**base, "consent": "Other words."}, tmp_path).digest != one.digest
