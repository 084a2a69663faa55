"""load_run reads a run directory without changing it."""

import pandas as pd
import pytest

from crseval.core.errors import CrsevalError
from crseval.runs import RunStore, load_run

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check


def test_tables_signature_and_records_read_only(tmp_path):
    s = RunStore(tmp_path / "run")
    s.write_table("t", pd.DataFrame({"a": [1, 2]}))
    s.save_signature({"crseval": "x", "data": "d@1"})
    s.append("items", {"key": "k1"})
    s.close()
    torn = tmp_path / "run" / "records" / "items.jsonl"
    torn.write_text(torn.read_text() + '{"key": "k2"')
    before = torn.read_bytes()
    run = load_run(tmp_path / "run")
    assert list(run.tables) == ["t"]
    assert run.tables["t"]["a"].tolist() == [1, 2]
    assert run.signature["data"] == "d@1"
    assert [r["key"] for r in run.records("items")] == ["k1"]
    assert run.skipped_lines == 1
    assert torn.read_bytes() == before  # nothing repaired or truncated


def test_a_missing_run_is_an_error_and_nothing_is_created(tmp_path):
    with pytest.raises(CrsevalError, match="not found"):
        load_run(tmp_path / "nope")
    assert not (tmp_path / "nope").exists()


def test_an_unreadable_table_is_a_clear_error(tmp_path):
    (tmp_path / "run" / "tables").mkdir(parents=True)
    (tmp_path / "run" / "tables" / "bad.csv").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CrsevalError, match="bad.csv"):
        load_run(tmp_path / "run").tables["bad"]
