"""Reading the real users a run is compared with: --also's sources."""

import shutil

from crseval.adaptation.user_validity import read_others
from tests.conftest import shared_path


def test_two_other_sources_of_one_name_are_both_kept(tmp_path):
    crowd = shared_path("arena/crsarena_dial/crs_arena_dial_open.json")
    specs = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        specs.append(str(shutil.copy(crowd, tmp_path / folder)))
    assert list(read_others(specs)) == specs  # one name twice: each by its path
    assert list(read_others([str(crowd)])) == [crowd.name]
