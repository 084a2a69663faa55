"""What a study publishes beside its logs: judge score CSVs (range-checked, ANOVA with F as scipy computes it)
and per-model means (set against what crseval reproduces from the same logs)."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from crseval import evaluate
from crseval.data.session_logs import dumps_layout
from crseval.adaptation.published import apply_policy, judge_anova, read_judge_scores
from crseval.core.errors import CrsevalError


def _judge_csv(path, scores):
    pd.DataFrame({"session_id": range(len(next(iter(scores.values())))), **scores}).to_csv(
        path, index=False
    )


def test_judge_scores_are_read_checked_and_analysed_like_scipy(tmp_path):
    rng = np.random.default_rng(0)
    raw = {}
    for m, shift in (("qwen:7b", 0.0), ("llama3", 0.6), ("gemma", 1.0)):
        raw[m] = {
            a: np.clip(np.round(rng.normal(3 + shift, 0.8, 40)), 0, 6)
            for a in ("Coherence", "personalization")
        }
        _judge_csv(tmp_path / f"{m}_judge_scores.csv", raw[m])
    files = sorted(tmp_path.glob("*_judge_scores.csv"))
    scores = read_judge_scores(files)
    assert set(scores["system"]) == {"qwen:7b", "llama3", "gemma"}
    assert set(scores["aspect"]) == {"coherence", "personalization"}  # column names in any case
    kept, notes = apply_policy(scores, "report", (1, 5))
    assert len(kept) == len(scores)  # reported, not dropped: the published analysis used them
    assert "outside [1, 5]" in notes[0]
    assert "_judge_scores.csv:" in notes[0]  # file and line of each
    anova, tukey = judge_anova(kept)
    row = anova.set_index("aspect").loc["coherence"]
    ref = stats.f_oneway(*(raw[m]["Coherence"] for m in ("gemma", "llama3", "qwen:7b")))
    assert row["F"] == pytest.approx(ref.statistic)
    assert row["p"] == pytest.approx(ref.pvalue)
    assert (row["df_between"], row["df_within"]) == (2, 117)
    assert len(tukey) == 6  # 3 pairs × 2 aspects
    dropped, _ = apply_policy(scores, "drop", (1, 5))
    assert dropped["score"].between(1, 5).all()
    with pytest.raises(CrsevalError, match="outside the scale"):
        apply_policy(scores, "refuse", (1, 5))


def test_score_command_reproduces_published_means_and_reads_embedded_judge_scores(tmp_path):
    run = tmp_path / "run"
    evaluate(
        "shift.run",
        {
            "seed": 2,
            "sessions": 3,
            "turns": 4,
            "n_boot": 50,
            "judge": {"enabled": False},
            "models": [
                {"name": "a", "kind": "template"},
                {"name": "b", "kind": "template", "shortlist": 2},
            ],
        },
        out=run,
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    from crseval.runs import RunStore

    for k, r in enumerate(RunStore(run).records("results")):
        doc = json.loads(dumps_layout(r))
        doc["judge_scores"] = {"coherence": 1 + k % 5, "proactiveness": 2 + (k % 2)}
        (logs / f"{r['key'].replace('|', '_')}.json").write_text(json.dumps(doc))
    mine = pd.read_csv(run / "tables" / "model_metrics.csv")
    pub = mine.pivot(index="system", columns="metric", values="mean")[
        ["cross_coherence", "context_retention"]
    ]
    pub.reset_index().to_csv(logs / "model_metrics.csv", index=False)
    res = evaluate("shift.score", logs=logs, kb="sample", n_boot=50, out=tmp_path / "scored")
    table = res.details["Published vs reproduced per-model means"]
    assert set(table["metric"]) == {"cross_coherence", "context_retention"}
    assert table["abs_diff"].max() < 1e-9  # the same sessions, the same scorer: the same numbers
    anova = res.details["One-way ANOVA of the judge scores that came with the logs"]
    assert set(anova["aspect"]) == {"coherence", "proactiveness"}
    assert any("catalogue: sample-movies@" in n for n in res.notes)


def test_imported_logs_without_a_catalogue_are_refused(tmp_path):
    (tmp_path / "s.json").write_text(
        json.dumps(
            {
                "model_name": "m",
                "conversation": [
                    {"speaker": "user", "text": "a comedy"},
                    {"speaker": "system", "text": "Try Superbad."},
                ],
            }
        )
    )
    with pytest.raises(CrsevalError, match="--kb"):
        evaluate("shift.score", logs=tmp_path / "s.json", out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_published_table_is_found_in_the_logs_parent_folder(tmp_path):
    """The shared study layout: logs/ beside model_metrics.csv (not inside it)."""
    run = tmp_path / "run"
    evaluate(
        "shift.run",
        {
            "seed": 2,
            "sessions": 2,
            "turns": 3,
            "n_boot": 20,
            "judge": {"enabled": False},
            "models": [{"name": "a", "kind": "template"}],
        },
        out=run,
    )
    logs = tmp_path / "study" / "logs"
    logs.mkdir(parents=True)
    from crseval.runs import RunStore

    for r in RunStore(run).records("results"):
        (logs / f"{r['key'].replace('|', '_')}.json").write_text(dumps_layout(r))
    mine = pd.read_csv(run / "tables" / "model_metrics.csv")
    mine.pivot(index="system", columns="metric", values="mean")[
        ["cross_coherence"]
    ].reset_index().to_csv(tmp_path / "study" / "model_metrics.csv", index=False)
    res = evaluate("shift.score", logs=logs, kb="sample", n_boot=20, out=tmp_path / "scored")
    table = res.details["Published vs reproduced per-model means"]
    assert set(table["metric"]) == {"cross_coherence"} and table["abs_diff"].max() < 1e-9
