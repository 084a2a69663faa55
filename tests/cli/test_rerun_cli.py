"""`crseval rerun RUN`: the same job from RUN/config.json into a new directory, tables compared; exit 1 when
any table differs, one line and exit 2 on bad input."""

import pandas as pd

from tests.support.cli import crseval

RATINGS = "item,rater,q\n" + "".join(
    f"i{i},r{r},{1 + (i * r) % 5}\n" for i in range(10) for r in range(3)
)


def test_rerun_reproduces_a_run_and_reports_a_difference(tmp_path):
    (tmp_path / "r.csv").write_text(RATINGS)
    crseval(
        "reliability",
        str(tmp_path / "r.csv"),
        "--item-col",
        "item",
        "--rater-col",
        "rater",
        "--n-boot",
        "30",
        "--out",
        str(tmp_path / "run"),
    )
    out = crseval("rerun", str(tmp_path / "run"))
    assert "every table identical" in out.stderr
    assert (tmp_path / "run-rerun" / "config.json").is_file()
    table = tmp_path / "run" / "tables" / "reliability.parquet"  # what a run's tables are read from
    df = pd.read_parquet(table)
    df.assign(dimension="other").to_parquet(table, index=False)
    out = crseval("rerun", str(tmp_path / "run"), "--out", str(tmp_path / "again"), check=False)
    assert out.returncode == 1
    assert "table reliability: differs" in out.stderr


def test_rerun_refuses_bad_input_in_one_line(tmp_path):
    out = crseval("rerun", str(tmp_path / "nowhere"), check=False)
    assert (
        out.returncode == 2
        and "run directory not found" in out.stderr
        and "Traceback" not in out.stderr
    )
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.json").write_text("{not json")
    out = crseval("rerun", str(tmp_path / "old"), check=False)
    assert out.returncode == 2 and "config.json" in out.stderr and "Traceback" not in out.stderr
