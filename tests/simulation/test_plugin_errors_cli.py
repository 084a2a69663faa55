"""Your own CRS named the ways a newcomer names it (module:function, a file, a file:function): what works
works, and every mistake is one line pointing the right way — also under --dry-run, before any work."""

import sys
import pytest

from tests.support.cli import crseval

CRS = "def respond(history):\n    return 'How about Heat (1995)?'\n\ndef helper():\n    pass\n"


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """my_crs.py in one folder, the command run from another."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "my_crs.py").write_text(CRS)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    # another test in this worker may have imported examples/my_crs.py as the module my_crs
    monkeypatch.delitem(sys.modules, "my_crs", raising=False)
    return tmp_path / "mine" / "my_crs.py"


def _system(target, *more):
    return crseval("behavior", "run", "sample", "--system", target, "--dry-run", *more, check=False)


def test_a_module_from_another_folder_is_told_to_give_the_path(elsewhere):
    res = _system("my_crs:respond")
    assert res.returncode == 2
    assert "no module 'my_crs'" in res.stderr and "path/to/my_crs.py:respond" in res.stderr
    assert "beside the config" not in res.stderr  # there is no config


def test_a_file_path_with_or_without_its_function_is_loaded(elsewhere):
    from crseval.simulation.plugins import load_callable

    assert load_callable(str(elsewhere))([]) == "How about Heat (1995)?"  # its respond
    assert load_callable(f"{elsewhere}:helper").__name__ == "helper"
    assert _system(str(elsewhere)).returncode == 0


def test_a_crs_in_two_files_loads_from_anywhere_with_its_own_siblings(tmp_path, monkeypatch):
    """A CRS file that imports a sibling module loads without PYTHONPATH from another working folder; a v2
    in another folder with a sibling of the same name gets its own sibling, not v1's."""
    from crseval.simulation.plugins import load_callable

    for version, film in (("v1", "Heat (1995)"), ("v2", "Alien (1979)")):
        (tmp_path / version).mkdir()
        (tmp_path / version / "crs_common.py").write_text(f"FILM = {film!r}\n")
        (tmp_path / version / f"crs_{version}.py").write_text(
            "from crs_common import FILM\n\ndef respond(history):\n    return f'How about {FILM}?'\n"
        )
    monkeypatch.chdir(tmp_path)  # neither folder is the working folder
    v1 = load_callable(str(tmp_path / "v1" / "crs_v1.py"))
    v2 = load_callable(str(tmp_path / "v2" / "crs_v2.py"))
    assert (v1([]), v2([])) == ("How about Heat (1995)?", "How about Alien (1979)?")
    assert "crs_common" not in sys.modules


def test_a_misspelt_function_lists_the_ones_there(elsewhere):
    res = _system(f"{elsewhere}:respnd")
    assert res.returncode == 2
    assert "has no 'respnd'" in res.stderr and "helper, respond" in res.stderr


def test_a_missing_file_is_named(elsewhere):
    res = _system(str(elsewhere.with_name("nope.py")))
    assert res.returncode == 2 and "no such file" in res.stderr and "nope.py" in res.stderr


def test_a_server_url_without_its_scheme_and_one_that_does_not_answer(tmp_path):
    res = crseval(
        "llm", "chat", "hi", "--backend", "openai", "--base-url", "127.0.0.1:9", check=False
    )
    assert res.returncode == 2 and "try 'http://127.0.0.1:9'" in res.stderr
    cfg = tmp_path / "llm.toml"
    cfg.write_text('backend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmax_retries = 0\n')
    res = crseval(
        "llm", "chat", "hi", "--config", cfg, "--cache", tmp_path / "c.sqlite", check=False
    )
    assert res.returncode == 2
    assert "cannot reach http://127.0.0.1:9/v1" in res.stderr and "--base-url" in res.stderr
