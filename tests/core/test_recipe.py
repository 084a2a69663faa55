"""The extending recipe, followed for a toy capability: its job is its computation plus declarations — no
line of it writes, signs or reports, and the runner gives it a run directory with its table checked
against the declaration, a signature with its settings and a report section captioned from it."""

import pandas as pd
import pytest
from pydantic import BaseModel, ConfigDict, Field

from crseval.api import execute
from crseval.core.errors import CrsevalError
from crseval.core.job import JobSpec
from crseval.core.output import Output
from crseval.core.registry import register_metric, register_table
from crseval.runs.view import load_run


@pytest.fixture(autouse=True)
def declared():
    """The toy's declarations (its metrics.py), kept out of every other test's registry."""
    from crseval.core import registry

    register_table(
        "toy_lengths",
        ["item"],
        "how long each text is, in words",
        capability="toy",
        columns=["words"],
    )
    register_metric("words", "words in the text", capability="toy", higher_is_better=None)
    yield
    registry.TABLES.pop("toy_lengths")
    registry.METRICS.pop("toy.words")


class ToyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    texts: list[str] = Field(["a b", "c"], description="The texts to measure.")
    unit: str = Field("words", description="What is counted.", json_schema_extra={"signed": True})


def measure(config: ToyConfig, ctx) -> Output:  # the whole job: compute and say what
    table = pd.DataFrame({"item": config.texts, "words": [len(t.split()) for t in config.texts]})
    out = Output("toy lengths", table, tables={"toy_lengths": table}, signature={"data": "toy@1"})
    out.section("Toy lengths", "Words per text.", tables=["toy_lengths"])
    return out


TOY = JobSpec("toy", ToyConfig, measure, "runs/toy", "Count words.", "Toy")


def test_a_toy_capability_needs_no_code_that_writes_signs_or_reports(tmp_path):
    result = execute(TOY, ToyConfig(), tmp_path / "run")
    run = load_run(tmp_path / "run")
    assert run.tables["toy_lengths"]["words"].tolist() == [2, 1]
    assert result.signature["data"] == "toy@1" and result.signature["unit"] == "words"
    assert result.signature["job"] == "toy" and len(result.signature["config"]) == 12
    assert "|data:toy@1|unit:words" in result.signature_line
    sections = load_run(tmp_path / "run").json("report_sections.json")
    assert sections[0]["tables"] == [["toy_lengths", "How long each text is, in words"]]
    assert "Toy lengths" in result.report.read_text(encoding="utf-8")


def test_a_column_the_declaration_does_not_know_is_refused(tmp_path, monkeypatch):
    def sloppy(config, ctx) -> Output:
        out = measure(config, ctx)
        out.tables["toy_lengths"] = out.tables["toy_lengths"].assign(chars=3)
        return out

    monkeypatch.setenv("CRSEVAL_STRICT_TABLES", "1")
    with pytest.raises(CrsevalError, match="chars"):
        execute(
            JobSpec("toy", ToyConfig, sloppy, "runs/toy", "", "Toy"), ToyConfig(), tmp_path / "r"
        )
