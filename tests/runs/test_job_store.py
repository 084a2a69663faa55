"""A job cannot write a table: it is handed its records, cache and own files, and returns an Output."""

import pandas as pd
import pytest
from pydantic import BaseModel

from crseval.api import execute
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.runs.job_store import RUNNER_ONLY


class Nothing(BaseModel):
    pass


def _job(run) -> JobSpec:
    return JobSpec("test.job", Nothing, run, "runs/test", "a test job", "Test")


def test_a_job_that_writes_a_table_itself_is_stopped(tmp_path):
    def writes(config, store, progress):
        store.write_table("sneaky", pd.DataFrame({"x": [1]}))
        return Output("x")

    with pytest.raises(AttributeError, match="a job does not call write_table"):
        execute(_job(writes), Nothing(), tmp_path / "run")
    assert not (tmp_path / "run" / "tables" / "sneaky.csv").exists()


@pytest.mark.parametrize("name", sorted(RUNNER_ONLY))
def test_every_writer_of_the_runner_is_out_of_a_jobs_reach(tmp_path, name):
    def reaches(config, store, progress):
        getattr(store, name)
        return Output("x")

    with pytest.raises(AttributeError, match=f"a job does not call {name}"):
        execute(_job(reaches), Nothing(), tmp_path / "run")


def test_what_a_job_returns_the_runner_writes_and_its_records_stay(tmp_path, monkeypatch):
    monkeypatch.delenv(
        "CRSEVAL_STRICT_TABLES", raising=False
    )  # a test table no capability declares

    def returns(config, store, progress):
        store.stream("items").run([("a", 1)], lambda v: {"v": v})
        with pytest.raises(AttributeError):
            store.root = tmp_path  # nor does it move the run directory
        return Output("x", tables={"items": pd.DataFrame({"v": [1]})}, signature={"data": "none"})

    execute(_job(returns), Nothing(), tmp_path / "run")
    assert pd.read_csv(tmp_path / "run" / "tables" / "items.csv")["v"].tolist() == [1]
    assert (tmp_path / "run" / "records" / "items.jsonl").read_text().count("\n") == 1
