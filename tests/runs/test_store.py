import json

import pandas as pd
import pytest

from crseval.core.errors import CrsevalError
from crseval.runs import RunStore

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check


def test_append_is_exactly_once_per_key(tmp_path):
    s = RunStore(tmp_path / "run")
    assert s.append("items", {"key": "a", "v": 1})
    assert not s.append("items", {"key": "a", "v": 2})
    s.close()
    s2 = RunStore(tmp_path / "run")
    assert s2.done_keys("items") == {"a"}
    assert not s2.append("items", {"key": "a", "v": 3})
    assert [r["v"] for r in s2.records("items")] == [1]


def test_torn_trailing_line_is_reported_and_repaired(tmp_path):
    s = RunStore(tmp_path / "run")
    for k in "abc":
        s.append("items", {"key": k})
    s.close()
    p = tmp_path / "run" / "records" / "items.jsonl"
    p.write_bytes(p.read_bytes() + b'{"key": "d", "val')  # a write cut by kill -9
    s2 = RunStore(tmp_path / "run")
    assert [r["key"] for r in s2.records("items")] == ["a", "b", "c"]
    assert len(s2.repairs) == 1
    assert "torn" in s2.repairs[0]
    assert "WARNING" in (tmp_path / "run" / "run.log").read_text()
    assert p.read_bytes().endswith(b'"c"}\n')  # repaired on disk
    s2.append("items", {"key": "d"})
    assert [r["key"] for r in RunStore(tmp_path / "run").records("items")] == ["a", "b", "c", "d"]


def test_complete_json_without_newline_counts_as_torn(tmp_path):
    s = RunStore(tmp_path / "run")
    p = s.writable("records", "items.jsonl")
    p.write_text('{"key": "a"}\n{"key": "b"}')
    assert [r["key"] for r in s.records("items")] == ["a"]
    assert s.repairs


def test_corruption_in_the_middle_is_an_error_with_the_line(tmp_path):
    s = RunStore(tmp_path / "run")
    s.writable("records", "items.jsonl").write_text('{"key": "a"}\nGARBAGE\n{"key": "c"}\n')
    with pytest.raises(CrsevalError) as e:
        s.records("items")
    assert e.value.line == 2


def test_paths_never_leave_the_run_directory(tmp_path):
    s = RunStore(tmp_path / "run")
    with pytest.raises(CrsevalError, match="leaves the run directory"):
        s.path("..", "elsewhere.txt")
    with pytest.raises(CrsevalError):
        s.write_table("../../evil", pd.DataFrame({"a": [1]}))


def test_resuming_with_a_different_config_is_refused(tmp_path):
    record = {
        "job": "j",
        "config": {"seed": 1},
        "data": {},
        "versions": {"crseval": "0", "git": "g"},
    }

    def begun(rec):
        store = RunStore(tmp_path / "run")
        store.begin(rec)
        return store

    s = begun(record)
    assert not (tmp_path / "run").exists()  # checked and written with the run's first file
    s.log("started")
    begun(record).log("resumed")
    for other, what in (
        ({"config": {"seed": 2}}, "configuration"),
        ({"job": "k"}, "job"),
        ({"data": {"f": "x@1"}}, "input data"),
    ):
        with pytest.raises(CrsevalError, match=f"different {what}"):
            begun({**record, **other}).log("never written")
    s = begun(
        {**record, "versions": {"crseval": "1", "git": "h"}}
    )  # other versions resume, and say so
    s.log("resumed")
    assert "resumed with other versions" in (tmp_path / "run" / "run.log").read_text()
    assert (
        s.save_signature({"crseval": "1", "data": "d"})["crseval"] == "0"
    )  # the run's first versions


def test_tables_are_written_as_csv_and_parquet(tmp_path):
    s = RunStore(tmp_path / "run")
    df = pd.DataFrame({"model": ["a", "b"], "score": [0.5, 0.25], "failed": [False, True]})
    s.write_table("scores", df)
    assert pd.read_parquet(tmp_path / "run" / "tables" / "scores.parquet").equals(df)
    assert pd.read_csv(tmp_path / "run" / "tables" / "scores.csv").equals(df)
    # read back from Parquet, types kept: a boolean column stays boolean, a string id stays a string
    from crseval.runs.view import load_run

    s.write_table("ids", pd.DataFrame({"session": ["007"]}))
    back = load_run(s.root).tables
    assert back["scores"].equals(df) and back["ids"]["session"].tolist() == ["007"]
    s.save_signature({"crseval": "x", "data": "d@1"})
    assert (
        json.loads((tmp_path / "run" / "signature.json").read_text())["line"]
        == "crseval:x|data:d@1"
    )


def test_a_table_written_in_parts_reads_back_as_one(tmp_path):
    parts = [
        pd.DataFrame({"model": ["a", "a"], "tas": [0.5, 0.25], "event": ["x", ""]}),
        pd.DataFrame(
            {"model": ["b"], "tas": [None], "event": [None]}
        ),  # all-null columns: cast to part 1's types
        pd.DataFrame({"model": ["c"], "tas": [1.0], "event": ["y"]}),
    ]
    s = RunStore(tmp_path / "run")
    s.write_table_parts("turns", iter(parts))
    whole = pd.concat(parts, ignore_index=True)
    s.write_table("whole", whole)
    tables = tmp_path / "run" / "tables"
    assert (tables / "turns.csv").read_text() == (tables / "whole.csv").read_text()
    back = pd.read_parquet(tables / "turns.parquet")
    assert back["model"].tolist() == ["a", "a", "b", "c"] and back["tas"].isna().tolist() == [
        False,
        False,
        True,
        False,
    ]
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tables / "turns.parquet").num_row_groups == 3


def test_opening_a_store_creates_nothing_until_the_first_write(tmp_path):
    s = RunStore(tmp_path / "run")
    assert s.records("items") == []
    assert s.sections() == []
    assert not (tmp_path / "run").exists()
    s.append("items", {"key": "a"})
    assert (tmp_path / "run" / "records" / "items.jsonl").exists()


def test_a_file_in_place_of_the_run_directory_is_a_clear_error(tmp_path):
    f = tmp_path / "notadir"
    f.write_text("x")
    with pytest.raises(CrsevalError, match="is a file"):
        RunStore(f)


def _provenance_of(folder, record):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(record))


def test_a_default_folder_holding_another_run_is_never_a_dead_end(tmp_path):
    """``free_directory``: the base when free; the numbered sibling that holds this run (to resume it),
    wherever it is among its siblings; else the first sibling that holds no run."""
    from crseval.runs.store import free_directory

    mine = {"job": "arena", "config": {"n_boot": 10}, "data": {"votes": ["a@1"]}}
    other = {**mine, "config": {"n_boot": 20}}
    base = tmp_path / "runs" / "arena"
    assert free_directory(base, mine) == base  # nothing there yet
    _provenance_of(base, other)
    assert free_directory(base, mine) == tmp_path / "runs" / "arena-2"
    _provenance_of(
        tmp_path / "runs" / "arena-2", {**mine, "data": {"votes": ["a@2"]}}
    )  # other data
    (tmp_path / "runs" / "arena-3").write_text("a file in the way")
    _provenance_of(tmp_path / "runs" / "arena-5", mine)
    assert free_directory(base, mine) == tmp_path / "runs" / "arena-5"  # resumes where it ran
    (tmp_path / "runs" / "arena-5" / "config.json").write_text("{not json")  # unreadable: not ours
    assert free_directory(base, mine) == tmp_path / "runs" / "arena-4"
    (tmp_path / "runs" / "arena-4").mkdir()  # an empty folder holds no run
    assert free_directory(base, mine) == tmp_path / "runs" / "arena-4"
    assert free_directory(base, other) == base


def test_a_crs_files_new_version_is_a_revision_only_when_retrying_failed_work(tmp_path):
    """Issue #92: fixing a Python CRS's file made --retry-failed refuse its own run directory."""
    import json

    from crseval.core.errors import CrsevalError as Refused
    from crseval.runs.store import RunStore as Store

    def record(code: str, kb: str = "kb@1") -> dict:
        return {"job": "j", "config": {"x": 1}, "data": {"m.0.target": code, "kb": kb}}

    def opened(rec: dict, revise: bool) -> Store:
        store = Store(tmp_path / "run")
        store.begin({**rec, "code": ["m.0.target"], "versions": {}}, revise=revise)
        store.log("opened")
        store.close()
        return store

    opened(record("crs.py@aaa"), False)
    with pytest.raises(Refused, match="--retry-failed"):
        opened(record("crs.py@bbb"), False)
    opened(record("crs.py@bbb"), True)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["data"]["m.0.target"] == "crs.py@bbb"
    assert [(r["from"], r["to"]) for r in config["revisions"]] == [("crs.py@aaa", "crs.py@bbb")]
    with pytest.raises(Refused, match="input data: kb"):  # other data is never a revision
        opened(record("crs.py@bbb", kb="kb@2"), True)
