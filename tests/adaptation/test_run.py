"""The preference-shift job end to end on the scripted backend: files, resume, import round trip, Ray."""

import json
import os
import shutil

import pandas as pd
import pytest

from crseval import evaluate
from crseval.adaptation.config import ShiftConfig
from crseval.data.session_logs import dumps_layout, import_logs
from crseval.core.config import validate
from crseval.core.errors import ConfigError, CrsevalError
from crseval.runs import RunStore
from tests.support.runs import listed_figures

CONFIG = {
    "seed": 3,
    "sessions": 3,
    "turns": 5,
    "workers": 2,
    "n_boot": 200,
    "simulator": {"shift_every": [2, 3]},
    "models": [
        {"name": "template", "kind": "template"},
        {"name": "scripted", "kind": "llm", "llm": {"backend": "scripted"}},
    ],
    "judge": {"judges": [{"name": "j", "llm": {"backend": "scripted"}}]},
}


def _cfg(**kw):
    return validate(ShiftConfig, {**CONFIG, **kw})


def _tas(run_dir):
    return {r["key"]: (r["tas"]["tas"], r["turns"]) for r in RunStore(run_dir).records("results")}


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("shift") / "run"
    evaluate("shift.run", _cfg(), out=out)
    return out


def test_writes_every_artifact(full_run):
    store = RunStore(full_run)
    results = store.records("results")
    assert sorted(r["key"] for r in results) == sorted(
        f"{m}|{s}" for m in ("template", "scripted") for s in range(3)
    )
    for name in (
        "model_metrics",
        "anova",
        "tukey",
        "shift_sessions",
        "shift_turns",
        "shift_detection",
    ):
        assert store.path("tables", f"{name}.csv").exists(), name
    assert {"shift_metrics", "shift_judge", "shift_radar", "shift_correlations"} <= listed_figures(
        full_run
    )
    r = results[0]
    assert 1 <= len(r["turns"]) <= 5  # the simulated user may leave before the last turn
    assert set(r["judge"]) == {"proactiveness", "coherence", "personalization"}
    assert r["judge_by"]["j"]
    assert r["tas"]["events"][0]["turn"] == 0
    assert any(t["truth"]["shift"] for r in results for t in r["turns"])
    assert all(r["end"] in ("satisfied", "frustrated", "open") for r in results)
    sig = store.read_json("signature.json")["line"]
    assert "tas(sim_shift=0.55" in sig
    assert "fallbacks:none" in sig
    html = store.path("report.html").read_text()
    assert "Drill-down: shift_turns" in html
    assert "class='hl'" in html
    assert "true shift" in html


def test_same_seed_same_numbers_and_paired_users(full_run, tmp_path):
    again = tmp_path / "again"
    evaluate("shift.run", _cfg(), out=again)
    assert _tas(again) == _tas(full_run)
    by = _tas(full_run)
    # session s meets the same user in every model: the opening utterance is identical
    assert by["template|1"][1][0]["user"] == by["scripted|1"][1][0]["user"]


def test_interrupted_run_resumes_exactly_once(full_run, tmp_path):
    out = tmp_path / "cut"
    shutil.copytree(full_run, out)  # a finished run, then its records cut short
    path = RunStore(out).path("records", "results.jsonl")
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(
        b"\n".join(lines[:2]) + b"\n" + lines[2][:50]
    )  # two complete sessions + a torn one
    evaluate("shift.run", _cfg(), out=out)
    assert _tas(out) == _tas(full_run)
    assert "torn" in RunStore(out).path("run.log").read_text()


def test_imported_logs_score_like_the_generated_sessions(full_run, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for r in RunStore(full_run).records("results"):
        (logs / (r["key"].replace("|", "_") + ".json")).write_text(dumps_layout(r))
    sessions, notes = import_logs(logs)
    assert len(sessions) == 6
    assert notes == []
    evaluate("shift.score", logs=logs, kb="sample", n_boot=200, out=tmp_path / "scored")
    got = {
        (r["model"], r["turns"][0]["user"]): r["tas"]
        for r in RunStore(tmp_path / "scored").records("results")
    }
    for r in RunStore(full_run).records("results"):
        mine = got[(r["model"], r["turns"][0]["user"])]
        for k in (
            "cross_coherence",
            "context_retention",
            "recovery_rate",
            "shifts_detected",
            "ti_norm",
        ):
            assert mine[k] == pytest.approx(r["tas"][k], nan_ok=True)
        assert "detection_precision" not in mine  # imported logs carry no simulator truth


def test_importer_is_lenient_in_names_and_strict_in_structure(tmp_path):
    f = tmp_path / "s1.json"
    f.write_text(
        json.dumps(
            {
                "model_name": "m",
                "true_genre": "comedy",
                "conversation": [
                    {"speaker": "Assistant", "text": "Hi!"},
                    {"speaker": "Seeker", "text": "a comedy"},
                    {"speaker": "user", "text": "please"},
                    {"speaker": "CRS", "text": "Try Superbad.", "constraints": {"g": 1}},
                    {"speaker": "HUMAN", "text": "bye"},
                ],
            }
        )
    )
    sessions, notes = import_logs(f)
    assert sessions[0]["turns"] == [
        {
            "turn": 0,
            "user": "a comedy please",
            "system": "Try Superbad.",
            "constraints": {"g": 1},
            "truth": None,
        }
    ]
    assert len(notes) == 3  # joined, leading system dropped, trailing user dropped
    for bad, field in [
        ({"conversation": []}, "model_name"),
        ({"model_name": "m", "conversation": "x"}, "conversation"),
        ({"model_name": "m", "conversation": [{"speaker": "alien", "text": "x"}]}, "speaker"),
        ({"model_name": "m", "conversation": [{"speaker": "user", "text": 3}]}, "text"),
    ]:
        f.write_text(json.dumps(bad))
        with pytest.raises(CrsevalError) as e:
            import_logs(f)
        assert field in str(e.value)
        assert "s1.json" in str(e.value)


def test_the_arenas_dialogues_import_with_the_user_as_the_session(tmp_path):
    """CRSArena-Dial's layout: the agent is the model and the user the session, so a battle's two dialogues
    pair up; a conversation the CRS never answered is left out and said so; a bad speaker is named."""

    def conv(crs, user, turns):
        said = [{"participant": p, "utterance": u} for p, u in turns]
        return {"conversation ID": f"{crs}_{user}", "agent": {"id": crs}, "conversation": said}

    f = tmp_path / "crs_arena_dial_open.json"
    hello = [("USER", "a comedy please"), ("AGENT", "Try Superbad.")]
    f.write_text(
        json.dumps([conv("kbrd_redial", "u1", hello), conv("barcor_redial", "u1", hello[:1])])
    )
    sessions, notes = import_logs(f)
    assert [(s["model"], s["session"], s["key"]) for s in sessions] == [
        ("kbrd_redial", "u1", "kbrd_redial|u1")
    ]
    assert sessions[0]["turns"][0]["system"] == "Try Superbad."
    assert notes == ["crs_arena_dial_open.json u1: no reply from barcor_redial, left out"]
    f.write_text(json.dumps([conv("kbrd_redial", "u1", [("ALIEN", "x"), ("AGENT", "y")])]))
    with pytest.raises(CrsevalError, match="speaker"):
        import_logs(f)


@pytest.mark.parametrize(
    "patch, key",
    [
        ({"models": []}, "models"),
        (
            {"models": [{"name": "a", "kind": "template"}, {"name": "a", "kind": "template"}]},
            "models",
        ),
        ({"models": [{"name": "a", "kind": "callable"}]}, "models.0"),
        ({"models": [{"name": "a", "kind": "robot"}]}, "models.0.kind"),
        ({"turns": 1}, "turns"),
        ({"executor": "spark"}, "executor"),
        ({"scoring": {"topics": "bert"}}, "scoring.topics"),
        ({"scoring": {"weights": {"speed": 1}}}, "scoring.weights"),
        ({"simulator": {"shift_every": [5, 2]}}, "simulator.shift_every"),
        ({"sessionz": 3}, "sessionz"),
    ],
)
def test_config_errors_name_the_key(patch, key):
    with pytest.raises(ConfigError) as e:
        validate(ShiftConfig, {**CONFIG, **patch})
    assert f"'{key}" in str(e.value)


def test_a_different_config_is_refused_on_resume(full_run):
    with pytest.raises(CrsevalError, match="different configuration"):
        evaluate("shift.run", _cfg(seed=4), out=full_run)


@pytest.mark.slow  # starting Ray takes ~25 s
def test_ray_executor_gives_the_same_sessions(full_run, tmp_path):
    pytest.importorskip("ray")
    import ray

    out = tmp_path / "ray"
    try:
        evaluate("shift.run", _cfg(executor="ray"), out=out)
    finally:
        ray.shutdown()
    assert _tas(out) == _tas(full_run)
    assert pd.read_csv(RunStore(out).path("tables", "model_metrics.csv")).equals(
        pd.read_csv(RunStore(full_run).path("tables", "model_metrics.csv"))
    )


@pytest.mark.slow  # the plumbing, so one session a model: each of its four model calls takes ~10 s here
def test_embedded_model_as_crs_and_judge(tmp_path):
    pytest.importorskip("llama_cpp")
    cfg = validate(
        ShiftConfig,
        {
            "seed": 0,
            "sessions": 1,
            "turns": 2,
            "workers": 1,
            "n_boot": 100,
            "models": [{"name": "qwen"}, {"name": "template", "kind": "template"}],
            "judge": {"aspects": ["personalization"], "judges": [{"name": "qwen"}]},
        },
    )
    evaluate("shift.run", cfg, out=tmp_path / "run")
    results = RunStore(tmp_path / "run").records("results")
    qwen = [r for r in results if r["model"] == "qwen"]
    assert len(results) == 2
    assert all(not r["errors"] for r in results)
    assert all(t["system"].strip() for r in qwen for t in r["turns"])  # the model wrote every reply
    assert all(
        1 <= r["judge"]["personalization"] <= 5 and r["judge_methods"] == ["expected"]
        for r in results
    )


def _calibrated_judge(path, model="scripted"):
    """A calibrated judge whose only weight is on the number of turns: its score is known by hand."""
    from crseval.judge.calibrated import SHIPPED

    j = json.loads(SHIPPED["redial"].read_text())
    m = j["models"]["dialogue-overall"]
    m.update(
        mean=[0.0] * len(m["mean"]),
        std=[1.0] * len(m["std"]),
        coef=[0.0] * len(m["coef"]),
        intercept=0.0,
        human_scale=[0, 100],
    )
    m["coef"][j["features"].index("turns")] = 1.0
    j.update(name="turns-only", llm={"backend": "scripted", "model": model})
    path.write_text(json.dumps(j))
    return path


def test_a_calibrated_judge_rates_every_session_and_enters_the_analysis(tmp_path):
    from crseval.judge.features import transcript_features, NAMES
    from crseval.adaptation.scoring import as_dialogue

    judge = _calibrated_judge(tmp_path / "judge.json")
    out = tmp_path / "run"
    evaluate(
        "shift.run", _cfg(sessions=2, judge={**CONFIG["judge"], "calibrated": str(judge)}), out=out
    )
    results = RunStore(out).records("results")
    for r in results:
        turns = transcript_features(as_dialogue(r))[NAMES.index("turns")]
        assert r["judge"]["dialogue-overall (calibrated)"] == pytest.approx(turns)
    metrics = set(pd.read_csv(out / "tables" / "model_metrics.csv")["metric"])
    assert "dialogue-overall (calibrated)" in metrics
    assert "turns-only" in (out / "signature.json").read_text()
    with pytest.raises(CrsevalError, match="read 'qwen'"):
        evaluate(
            "shift.run",
            _cfg(
                sessions=1,
                judge={
                    **CONFIG["judge"],
                    "calibrated": str(_calibrated_judge(tmp_path / "other.json", "qwen")),
                },
            ),
            out=tmp_path / "run2",
        )


def test_imported_logs_get_the_calibrated_judge_too(full_run, tmp_path):
    from crseval.judge.features import NAMES, transcript_features
    from crseval.adaptation.scoring import as_dialogue

    logs = tmp_path / "logs"
    logs.mkdir()
    for r in RunStore(full_run).records("results")[:2]:
        (logs / (r["key"].replace("|", "_") + ".json")).write_text(dumps_layout(r))
    judge = _calibrated_judge(tmp_path / "judge.json")
    with pytest.raises(CrsevalError, match="add --judge"):
        evaluate("shift.score", logs=logs, kb="sample", calibrated=str(judge), out=tmp_path / "no")
    out = tmp_path / "scored"
    evaluate(
        "shift.score",
        logs=logs,
        kb="sample",
        judge=True,
        calibrated=str(judge),
        n_boot=50,
        llm={"backend": "scripted"},
        out=out,
    )
    for r in RunStore(out).records("results"):
        turns = transcript_features(as_dialogue(r))[NAMES.index("turns")]
        assert r["judge"]["dialogue-overall (calibrated)"] == pytest.approx(turns)
    assert "dialogue-overall (calibrated)" in set(
        pd.read_csv(out / "tables" / "model_metrics.csv")["metric"]
    )
    assert "turns-only" in (out / "signature.json").read_text()


def test_sessions_split_over_worker_processes_score_exactly_as_in_one(full_run, monkeypatch):
    import crseval.adaptation.score as score
    from crseval.adaptation.config import ScoringSection
    from crseval.adaptation.scoring import build_scorer
    from crseval.data.kb import load_kb

    sessions = [
        {k: v for k, v in r.items() if k != "tas"} for r in RunStore(full_run).records("results")
    ]
    store = RunStore(full_run.parent / "scratch")
    one = build_scorer(ScoringSection(), load_kb(None), store, 0)[0].score(sessions)
    monkeypatch.setattr(score, "PARALLEL_MIN_UTTERANCES", 1)
    scorer = build_scorer(ScoringSection(), load_kb(None), store, 0)[0]
    assert score.workers_for(10, scorer.similarity, scorer.topics) == min(os.cpu_count() or 1, 8)
    assert json.dumps(scorer.score(sessions), sort_keys=True) == json.dumps(
        one, sort_keys=True
    )  # NaN == NaN here
