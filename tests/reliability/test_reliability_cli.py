import json

import pandas as pd
import pytest

from tests.support.cli import crseval


def test_reliability_on_a_generic_csv_writes_tables_figures_and_report(tmp_path, figures):
    rows = []
    rng = __import__("numpy").random.default_rng(0)
    quality = rng.normal(3, 1, 30)
    for i in range(30):
        for r in rng.choice(8, size=4, replace=False):
            rows.append(
                {
                    "dialogue": f"d{i}",
                    "worker": f"w{r}",
                    "fluency": int(min(5, max(1, round(quality[i] + rng.normal(0, 0.7))))),
                    "helpfulness": int(min(5, max(1, round(quality[i] + rng.normal(0, 0.9))))),
                }
            )
    csv = tmp_path / "ratings.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    out = tmp_path / "run"
    res = crseval(
        "reliability",
        str(csv),
        "--item-col",
        "dialogue",
        "--rater-col",
        "worker",
        "--n-boot",
        "20",
        "--out",
        str(out),
        "--format",
        "json",
    )
    data = json.loads(res.stdout)
    assert {r["dimension"] for r in data["result"]} == {"fluency", "helpfulness"}
    assert data["signature"].startswith("crseval:")
    for f in [
        "tables/reliability.csv",
        "tables/reliability.tex",
        "tables/reliability.md",
        "figures/reliability_structure.png",
        "figures/reliability_power.png",
        "report.html",
    ]:
        assert (out / f).exists(), f
    assert "\\toprule" in (out / "tables" / "reliability.tex").read_text()


def test_reliability_preset_crs_que(shared, tmp_path):
    res = crseval(
        "reliability",
        str(shared("judgments/crs_que/annotations.csv")),
        "--preset",
        "crs-que",
        "--n-boot",
        "0",
        "--out",
        str(tmp_path / "r"),
        "--format",
        "csv",
    )
    table = pd.read_csv(__import__("io").StringIO(res.stdout))
    assert len(table) == 18
    assert table["rel_k"].is_monotonic_decreasing
    assert (table["icc1"] > 0.1).all()
    qc = pd.read_csv(tmp_path / "r" / "tables" / "reliability_qc.csv")
    assert qc.loc[0, "gold items excluded"] == 2
    assert qc.loc[0, "items retained"] == 200


def test_missing_item_col_is_a_clear_error(tmp_path):
    csv = tmp_path / "r.csv"
    csv.write_text("a,b\n1,2\n")
    res = crseval("reliability", str(csv), check=False)
    assert res.returncode == 2
    assert "--item-col" in res.stderr
    assert "Traceback" not in res.stderr


def test_power_and_plan_commands():
    res = json.loads(
        crseval(
            "reliability", "power", "--k", "5", "--n", "200", "--icc", "0.25", "--format", "json"
        ).stdout
    )
    assert res[0]["quantity"] == "minimum detectable ICC"
    assert 0 < res[0]["value"] < 0.1
    plan = json.loads(
        crseval("reliability", "plan", "--icc", "0.25", "--max-k", "4", "--format", "json").stdout
    )
    assert [r["raters per item (k)"] for r in plan] == [2, 3, 4]
    assert plan[0]["items to beat ICC0"] > plan[-1]["items to beat ICC0"]


def test_judge_meta_eval_with_a_scripted_panel(shared, tmp_path):
    panel = tmp_path / "panel.toml"
    panel.write_text(
        '[[judges]]\nname = "a"\n[judges.llm]\nbackend = "scripted"\n\n'
        '[[judges]]\nname = "b"\nsamples = 2\n[judges.llm]\nbackend = "scripted"\nmodel = "b"\n'
    )
    res = crseval(
        "judge",
        "meta-eval",
        str(shared("judgments/ab_redial")),
        "--level",
        "turn",
        "--limit",
        "12",
        "--panel",
        str(panel),
        "--n-boot",
        "50",
        "--out",
        str(tmp_path / "m"),
        "--format",
        "json",
    )
    one = json.loads(
        crseval(
            "judge",
            "meta-eval",
            str(shared("judgments/ab_redial")),
            "--level",
            "turn",
            "--limit",
            "12",
            "--aspects",
            "relevance",
            "--backend",
            "scripted",
            "--samples",
            "2",
            "--temperature",
            "0.5",
            "--n-boot",
            "50",
            "--out",
            str(tmp_path / "m2"),
            "--format",
            "json",
        ).stdout
    )["result"]
    assert {r["aspect"] for r in one} == {"relevance"}
    assert "panel mean" not in {r["judge"] for r in one}
    assert pd.read_csv(tmp_path / "m2" / "tables" / "judge_mean_of_n.csv")["n_judges"].tolist() == [
        1,
        2,
    ]
    rows = json.loads(res.stdout)["result"]
    assert {r["judge"] for r in rows} == {"a", "b", "panel mean", "length baseline"}
    assert (tmp_path / "m" / "tables" / "judge_panel_reliability.csv").exists()
    # AB-ReDial has per-annotator ratings: humans and judges are analysed together where scales match (1–5)
    both = pd.read_csv(tmp_path / "m" / "tables" / "humans_and_judges_reliability.csv")
    assert list(both["dimension"]) == ["overall"]
    assert both.loc[0, "n_raters"] > 3


def test_long_format_gold_items_drop_flagged_and_clusters(tmp_path):
    import numpy as np

    rng = np.random.default_rng(1)
    q = rng.normal(3, 1, 20)
    rows = []
    for i in range(20):
        for r in range(5):
            for dim, noise in [("fluency", 0.5), ("coherence", 0.5), ("humour", 2.0)]:
                rows.append(
                    {
                        "dialogue": f"d{i}",
                        "worker": f"w{r}",
                        "dimension": dim,
                        "score": int(min(5, max(1, round(q[i] + rng.normal(0, noise))))),
                    }
                )
    for r, v in [
        ("w0", 5),
        ("w1", 1),
        ("w2", 1),
        ("w3", 1),
        ("w4", 1),
    ]:  # w0 calls the bad gold item good
        rows += [
            {"dialogue": "GOLD", "worker": r, "dimension": d, "score": v}
            for d in ("fluency", "coherence", "humour")
        ]
    csv = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    out = tmp_path / "run"
    res = crseval(
        "reliability",
        str(csv),
        "--item-col",
        "dialogue",
        "--rater-col",
        "worker",
        "--dimension-col",
        "dimension",
        "--value-col",
        "score",
        "--gold",
        "GOLD",
        "--drop-flagged",
        "--clusters",
        "2",
        "--n-boot",
        "0",
        "--out",
        str(out),
        "--format",
        "json",
    )
    table = json.loads(res.stdout)["result"]
    assert {r["dimension"] for r in table} == {"fluency", "coherence", "humour"}
    assert all(
        r["n_raters"] == 4 and r["n_items"] == 20 for r in table
    )  # w0 dropped, GOLD excluded
    flagged = pd.read_csv(out / "tables" / "reliability_flagged_raters.csv")
    assert list(flagged["rater"]) == ["w0"]
    clusters = pd.read_csv(out / "tables" / "reliability_clusters.csv").set_index("dimension")[
        "cluster"
    ]
    assert clusters["fluency"] == clusters["coherence"] != clusters["humour"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["plan", "--icc", "0"], "--icc 0 must lie above --icc0"),  # was a ValueError traceback
        (["plan", "--icc", "1.5"], "below 1"),
        (["plan", "--icc", "0.3", "--icc0", "0.4"], "must lie above --icc0 (0.4)"),
        (
            ["plan", "--icc", "0.3", "--width", "0"],
            "--width 0 must lie strictly between",
        ),  # was silently ignored
        (["plan", "--icc", "0.3", "--max-k", "1"], "--max-k"),
        (["power", "--k", "1", "--n", "200"], "--k"),
        (["power", "--k", "5", "--n", "2"], "--n"),
        (
            ["power", "--k", "5", "--n", "200", "--alpha", "0"],
            "--alpha 0 must lie strictly between 0 and 1",
        ),
        (
            ["power", "--k", "5", "--n", "200", "--power", "1"],
            "--power 1 must lie strictly between 0 and 1",
        ),
        (
            ["power", "--k", "5", "--n", "200", "--r", "1"],
            "--r 1 must lie strictly between -1 and 1",
        ),
    ],
)
def test_out_of_range_design_numbers_are_one_line_errors(args, says):
    res = crseval("reliability", *args, check=False)
    assert res.returncode == 2 and says in res.stderr and "unexpected error" not in res.stderr


def test_a_dimension_without_a_repeated_item_is_one_line(tmp_path):
    """One rating per item leaves no within-item variance to compare against (found by the CLI fuzz: a
    truncated ratings file ended in an unexpected ValueError)."""
    csv = tmp_path / "r.csv"
    csv.write_text("item,rater,q\ni1,a,3\ni2,b,4\ni3,a,2\n")
    res = crseval("reliability", csv, "--item-col", "item", "--rater-col", "rater", check=False)
    assert res.returncode == 2
    (line,) = [x for x in res.stderr.splitlines() if x.strip()]
    assert "dimension 'q' has 3 ratings of 3 items" in line and "more than once" in line


def test_a_dimension_every_rater_rated_the_same_is_one_line(tmp_path):
    """A study's export where every rating of a dimension was 4 ended in an unexpected ValueError."""
    csv = tmp_path / "r.csv"
    csv.write_text("item,rater,q\ni1,a,4\ni1,b,4\ni2,a,4\ni2,b,4\n")
    res = crseval("reliability", csv, "--item-col", "item", "--rater-col", "rater", check=False)
    assert res.returncode == 2
    (line,) = [x for x in res.stderr.splitlines() if x.strip()]
    assert "dimension 'q': every rating is 4" in line and "unexpected" not in line
