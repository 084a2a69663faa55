import json

import pandas as pd

from tests.cli.test_cli import crseval


def test_reliability_on_a_generic_csv_writes_tables_figures_and_report(tmp_path):
    rows = []
    rng = __import__("numpy").random.default_rng(0)
    quality = rng.normal(3, 1, 30)
    for i in range(30):
        for r in rng.choice(8, size=4, replace=False):
            rows.append({"dialogue": f"d{i}", "worker": f"w{r}",
                         "fluency": int(min(5, max(1, round(quality[i] + rng.normal(0, 0.7))))),
                         "helpfulness": int(min(5, max(1, round(quality[i] + rng.normal(0, 0.9)))))})
    csv = tmp_path / "ratings.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    out = tmp_path / "run"
    res = crseval("reliability", str(csv), "--item-col", "dialogue", "--rater-col", "worker", "--n-boot", "20",
                  "--out", str(out), "--format", "json")
    data = json.loads(res.stdout)
    assert {r["dimension"] for r in data["result"]} == {"fluency", "helpfulness"}
    assert data["signature"].startswith("crseval:")
    for f in ["tables/reliability.csv", "tables/reliability.tex", "tables/reliability.md",
              "figures/reliability_structure.png", "figures/reliability_power.png", "report.html"]:
        assert (out / f).exists(), f
    assert "\\toprule" in (out / "tables" / "reliability.tex").read_text()


def test_reliability_preset_crs_que(shared, tmp_path):
    res = crseval("reliability", str(shared("judgments/crs_que/annotations.csv")), "--preset", "crs-que",
                  "--n-boot", "0", "--out", str(tmp_path / "r"), "--format", "csv")
    table = pd.read_csv(__import__("io").StringIO(res.stdout))
    assert len(table) == 18 and table["rel_k"].is_monotonic_decreasing
    assert (table["icc1"] > 0.1).all()
    qc = pd.read_csv(tmp_path / "r" / "tables" / "reliability_qc.csv")
    assert qc.loc[0, "gold items excluded"] == 2 and qc.loc[0, "items retained"] == 200


def test_missing_item_col_is_a_clear_error(tmp_path):
    csv = tmp_path / "r.csv"
    csv.write_text("a,b\n1,2\n")
    res = crseval("reliability", str(csv), check=False)
    assert res.returncode == 2 and "--item-col" in res.stderr and "Traceback" not in res.stderr


def test_power_and_plan_commands():
    res = json.loads(crseval("reliability", "power", "--k", "5", "--n", "200", "--icc", "0.25", "--format",
                             "json").stdout)
    assert res[0]["quantity"] == "minimum detectable ICC" and 0 < res[0]["value"] < 0.1
    plan = json.loads(crseval("reliability", "plan", "--icc", "0.25", "--max-k", "4", "--format", "json").stdout)
    assert [r["raters per item (k)"] for r in plan] == [2, 3, 4]
    assert plan[0]["items to beat ICC0"] > plan[-1]["items to beat ICC0"]


def test_judge_meta_eval_with_a_scripted_panel(shared, tmp_path):
    panel = tmp_path / "panel.toml"
    panel.write_text('[[judges]]\nname = "a"\n[judges.llm]\nbackend = "scripted"\n\n'
                     '[[judges]]\nname = "b"\nsamples = 2\n[judges.llm]\nbackend = "scripted"\nmodel = "b"\n')
    res = crseval("judge", "meta-eval", str(shared("judgments/ab_redial")), "--level", "turn", "--limit", "12",
                  "--panel", str(panel), "--n-boot", "50", "--out", str(tmp_path / "m"), "--format", "json")
    rows = json.loads(res.stdout)
    assert {r["judge"] for r in rows} == {"a", "b", "panel mean", "length baseline"}
    assert (tmp_path / "m" / "tables" / "judge_panel_reliability.csv").exists()
    # AB-ReDial has per-annotator ratings: humans and judges are analysed together where scales match (1–5)
    both = pd.read_csv(tmp_path / "m" / "tables" / "humans_and_judges_reliability.csv")
    assert list(both["dimension"]) == ["overall"] and both.loc[0, "n_raters"] > 3
