"""One writer per run directory: a second process is refused, a dead one blocks nothing, stores of one
process share the folder."""

import subprocess
import sys

import pytest

from crseval.core.errors import CrsevalError
from crseval.runs import RunStore
from crseval.runs.writer_lock import _HELD

RECORD = {"job": "j", "config": {"seed": 1}, "data": {}, "versions": {"crseval": "0", "git": "g"}}
HOLDER = """
import sys
from pathlib import Path
from crseval.runs.writer_lock import hold
hold(Path(sys.argv[1]))
print("held", flush=True)
sys.stdin.readline()
"""


def begun(root) -> RunStore:
    store = RunStore(root)
    store.begin(RECORD)
    return store


@pytest.fixture
def other_process(tmp_path):
    """Another process holding ``tmp_path / 'run'``'s lock until the test lets it go (a real process:
    the lock is the OS's, per process)."""
    (tmp_path / "run").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "run")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "held"
    yield proc
    proc.kill()
    proc.wait()


def test_a_second_writer_is_refused_until_the_first_is_gone(tmp_path, other_process):
    store = begun(tmp_path / "run")
    with pytest.raises(CrsevalError, match="another crseval command is writing this run directory"):
        store.append("results", {"key": "a"})
    assert not (tmp_path / "run" / "records").exists()  # refused before anything was written
    other_process.kill()  # a killed writer: the OS drops its lock
    other_process.wait()
    store = begun(tmp_path / "run")
    assert store.append("results", {"key": "a"})
    store.close()


def test_stores_of_one_process_share_the_folder_and_free_it_when_all_close(tmp_path):
    first, second = begun(tmp_path / "run"), begun(tmp_path / "run")
    first.append("results", {"key": "a"})
    second.append("results", {"key": "b"})
    first.close()
    assert first.root in _HELD  # the second store still writes
    second.close()
    assert first.root not in _HELD
    done = subprocess.run(
        [sys.executable, "-c", HOLDER, str(tmp_path / "run")],
        input="\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.strip() == "held", done.stderr
