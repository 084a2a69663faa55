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


def test_a_run_written_with_old_column_names_reads_under_the_current_ones(tmp_path):
    """Columns renamed in 0.2 (one CI and p-value naming) still read from older runs, with a warning."""
    from crseval.report.compare import compare

    for name, v in (("A", 0.2), ("B", 0.6)):
        tables = tmp_path / name / "tables"
        tables.mkdir(parents=True)
        pd.DataFrame(
            {
                "aspect": ["overall"] * 3,
                "judge": ["j1", "j2", "j3"],
                "versus": ["length"] * 3,
                "pearson_difference": [v, v + 0.1, v + 0.2],
                "p_value": [0.01, 0.2, 0.5],
            }
        ).to_csv(tables / "judge_paired_tests.csv", index=False)
        pd.DataFrame(
            {"system": ["x"], "bt": [1000.0], "bt_low": [990.0], "bt_high": [1010.0]}
        ).to_csv(tables / "arena_ratings.csv", index=False)
    with pytest.warns(DeprecationWarning, match="p_value → p"):
        paired = load_run(tmp_path / "A").tables["judge_paired_tests"]
    assert "p" in paired and "p_value" not in paired
    with pytest.warns(DeprecationWarning, match="bt_low → bt_lo"):
        assert list(load_run(tmp_path / "A").tables["arena_ratings"].columns[-2:]) == [
            "bt_lo",
            "bt_hi",
        ]
    with pytest.warns(DeprecationWarning):
        c = compare([tmp_path / "A", tmp_path / "B"], "judge_paired_tests", ["p_value"])
    assert list(c.table["metric"]) == ["p"]
    assert any("deprecated name" in d for d in c.dropped)
