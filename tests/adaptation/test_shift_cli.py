import json

import pandas as pd
import pytest

from crseval.runs import RunStore
from crseval.runs.view import load_run

from tests.support.cli import FIGURES, crseval

CONFIG = """
seed = 1
sessions = 2
turns = 4
[[models]]
name = "template"
kind = "template"
[[models]]
name = "mine"
kind = "callable"
target = "tests.adaptation.test_shift_cli:echo_crs"
[judge]
enabled = false
"""


def echo_crs(history):
    return {"text": "How about Heat? It is a crime thriller.", "constraints": {"genres": ["crime"]}}


def test_shift_run_then_score_the_logs(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG)
    res = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--format", "json")
    payload = json.loads(res.stdout.split("\nreport:")[0])
    assert "tas(" in payload["signature"]
    models = {r["system"] for r in payload["result"]}
    assert models == {"template", "mine"}
    assert (tmp_path / "run" / "records" / "results.jsonl").read_text().count("\n") == 4
    scored = crseval("shift", "score", str(tmp_path / "run"), "--out", str(tmp_path / "scored"))
    assert "tas" in scored.stdout
    assert (tmp_path / "scored" / "report.html").exists()


def test_bad_config_is_one_line_naming_the_key(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(CONFIG.replace('kind = "template"', 'kind = "robot"'))
    res = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "r"), check=False)
    assert res.returncode == 2
    assert "models.0.kind" in res.stderr
    assert "Traceback" not in res.stderr


def test_run_and_score_options(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG.replace("sessions = 2", "sessions = 1"))
    crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"))
    bad = crseval(
        "shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--executor", "spark", check=False
    )
    assert bad.returncode == 2
    assert "executor" in bad.stderr
    again = crseval(
        "shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--fresh", "--format", "json"
    )
    assert len(json.loads(again.stdout.split("\nreport:")[0])["result"]) > 0
    crseval(
        "shift",
        "score",
        str(tmp_path / "run"),
        "--out",
        str(tmp_path / "s"),
        "--topics",
        "lda",
        "--judge",
        "--backend",
        "scripted",
    )
    sig = json.loads((tmp_path / "s" / "signature.json").read_text())["line"]
    assert "topics=lda(" in sig
    assert "llm.judge.backend:scripted" in sig


def test_validate_a_run_and_refuse_what_is_not_one(tmp_path):
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG.replace("turns = 4", "turns = 8"))
    crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"))
    records = RunStore(tmp_path / "run").records("results")
    said = sum(len(r["turns"]) for r in records if r["model"] == "template")
    log = tmp_path / "run" / "records" / "results.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join([lines[0], '{"torn\n', *lines[1:]]))  # a damaged line in the middle
    people = tmp_path / "people.json"  # other users' own logs, for the human-vs-human rows
    asks = [
        "any good comedy?",
        "not that one",
        "something older",
        "ok thanks",
        "a scary one please",
    ]
    people.write_text(
        json.dumps(
            [
                {
                    "conv_id": f"p{i}",
                    "system": "theirs",
                    "dial_level_aggregated": {"overall": 3},
                    "dialogue": [
                        {"role": r, "utterance": f"{asks[(i + j) % 5]} {i}" if r == "user" else "X"}
                        for j in range(3)
                        for r in ("user", "assistant")
                    ],
                }
                for i in range(12)
            ]
        )
    )
    res = crseval(
        "shift", "validate", str(tmp_path / "run"), "--max-turns", "10", "--also", str(people),
        "--format", "json",
    )  # fmt: skip
    rows = {
        r["system"]: r
        for r in json.loads(res.stdout.split("\nreport:")[0], parse_constant=lambda c: 1 / 0)[
            "result"
        ]
    }
    assert set(rows) == {"human (split half)", "template", "mine"}
    assert rows["template"]["shifts_stated"] == 1.0  # the rule-based user states every shift
    out = tmp_path / "run" / "validity"
    assert (out / "tables" / "shift_detector_sweep.csv").exists() and (out / "report.html").exists()
    like = pd.read_csv(out / "tables" / "shift_human_likeness.csv").set_index("source")
    assert like.loc["template", "turns"] == min(10, said)  # sampled down to --max-turns
    disc = pd.read_csv(out / "tables" / "shift_user_discriminator.csv")
    assert set(disc["source"]) == {"human (split half)", "template", "mine", "people.json"}
    assert (
        disc.loc[disc["source"] == "people.json", "compared"] == "human"
    ).all()  # --also: human vs human
    panel = disc[disc["source"] == "template"].set_index("member")["discriminator_auc"]
    assert len(panel) == 5 and rows["template"]["discriminator"] == panel.idxmax()
    assert rows["template"]["discriminator_auc"] == pytest.approx(
        panel.max(), abs=5e-4
    )  # the panel's best discriminator; the terminal's JSON rounds to three decimals
    # the bundled sample has no votes: no counterfactual, said so
    assert not (out / "tables" / "shift_user_counterfactual.csv").exists()
    assert "Counterfactual: needs" in (out / "report.html").read_text()
    assert (
        "1 damaged line of run/records/results.jsonl skipped" in (out / "report.html").read_text()
    )
    bad = crseval("shift", "validate", str(tmp_path), check=False)
    assert bad.returncode == 2 and "no scored sessions" in bad.stderr
    bad = crseval("shift", "validate", str(tmp_path / "run"), "--human", str(cfg), check=False)
    assert bad.returncode == 2 and "not real users' dialogues" in bad.stderr
    bad = crseval("shift", "validate", str(tmp_path / "run"), "--also", "sample", check=False)
    assert bad.returncode == 2 and "holds every dialogue of the reference" in bad.stderr


def test_thesis_definition_scores_a_run_and_reports_its_detector(tmp_path):
    pytest.importorskip("gensim")
    from tests.text.test_thesis_lda import make_tiny_lda

    lda = make_tiny_lda(tmp_path)
    cfg = tmp_path / "shift.toml"
    cfg.write_text(
        CONFIG.replace("[judge]", '[scoring]\ndefinition = "thesis"\nlda = "."\n[judge]')
    )
    run = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), "--format", "json")
    assert "thesis-tas(" in json.loads(run.stdout.split("\nreport:")[0])["signature"]
    scored = crseval(
        "shift",
        "score",
        str(tmp_path / "run"),
        "--definition",
        "thesis",
        "--lda",
        str(lda),
        "--out",
        str(tmp_path / "scored"),
        "--format",
        "json",
    )
    rows = json.loads(scored.stdout.split("\nreport:")[0])["result"]
    assert {r["system"] for r in rows} == {"template", "mine"}
    assert all(0 <= r["thesis.context_adaptation_score"] <= 1 for r in rows)
    mm = pd.read_csv(tmp_path / "scored" / "tables" / "model_metrics.csv")
    assert {
        "thesis.topic_recovery_rate",
        "thesis.avg_recovery_delay",
        "detection_precision",
    } <= set(mm["metric"])
    assert "tas" not in set(mm["metric"])


def test_thesis_definition_without_its_model_is_one_line(tmp_path):
    res = crseval(
        "shift",
        "score",
        str(tmp_path),
        "--definition",
        "thesis",
        "--out",
        str(tmp_path / "o"),
        check=False,
    )
    assert res.returncode == 2 and "--lda" in res.stderr and "Traceback" not in res.stderr
    res = crseval(
        "shift",
        "score",
        str(tmp_path),
        "--definition",
        "thesis",
        "--lda",
        str(tmp_path),
        "--kb",
        "sample",
        "--out",
        str(tmp_path / "o"),
        check=False,
    )
    assert res.returncode == 2 and "no session logs in this folder" in res.stderr
    (tmp_path / "s.json").write_text(
        '{"model_name": "m", "conversation": [{"speaker": "USER", "text": "hi"}, '
        '{"speaker": "SYSTEM", "text": "hello"}]}'
    )
    res = crseval(
        "shift",
        "score",
        str(tmp_path / "s.json"),
        "--definition",
        "thesis",
        "--lda",
        str(tmp_path),
        "--kb",
        "sample",
        "--out",
        str(tmp_path / "o2"),
        check=False,
    )
    assert res.returncode == 2 and "lda.model" in res.stderr and "Traceback" not in res.stderr


def test_lda_without_the_thesis_definition_is_refused(tmp_path):
    """--lda was silently ignored unless --definition thesis: a user who passed the study's model with
    --topics lda was scored with crseval's own LDA and never told."""
    res = crseval(
        "shift", "score", str(tmp_path), "--topics", "lda", "--lda", str(tmp_path), check=False
    )
    assert res.returncode == 2
    assert "field '--lda'" in res.stderr and "--definition thesis" in res.stderr


def test_a_bad_catalogue_leaves_no_run_to_refuse_the_corrected_command(tmp_path, recwarn):
    """The catalogue is read before the run's first file: a typo in --kb, then the same command with
    the right path into the same --out, scores (it was refused as a different configuration)."""
    logs = tmp_path / "s.json"
    logs.write_text(
        '{"model_name": "m", "conversation": [{"speaker": "USER", "text": "a comedy please"}, '
        '{"speaker": "SYSTEM", "text": "Try Airplane!"}]}'
    )
    out = tmp_path / "o"
    res = crseval("shift", "score", str(logs), "--kb", "nokb.json", "--out", str(out), check=False)
    assert res.returncode == 2 and "catalogue not found" in res.stderr
    assert not out.exists()
    res = crseval(
        "shift", "score", str(logs), "--kb", "sample", "--out", str(out), env=FIGURES, check=False
    )
    assert res.returncode == 0, res.stderr
    # one session: no correlation figure to draw (matplotlib warned about a 0 × 0 heatmap)
    assert (out / "figures" / "shift_metrics.png").exists()
    assert not (out / "figures" / "shift_correlations.png").exists()
    assert not [w for w in recwarn if "singular" in str(w.message)]


def broken_crs(history):
    raise RuntimeError("my model is not loaded")


def test_a_crs_that_fails_alone_ends_in_one_line_with_its_error(tmp_path, monkeypatch):
    """A newcomer tests their CRS alone first: every session fails → exit 1, the CRS's own error in one
    line, no crash file (it is not a bug of crseval)."""
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path / "home"))
    cfg = tmp_path / "alone.toml"
    cfg.write_text(
        'sessions = 2\nturns = 3\n[[models]]\nname = "mine"\nkind = "callable"\n'
        'target = "tests.adaptation.test_shift_cli:broken_crs"\n[judge]\nenabled = false\n'
    )
    res = crseval("shift", "run", str(cfg), "--out", str(tmp_path / "run"), check=False)
    assert res.returncode == 1
    (line,) = [x for x in res.stderr.splitlines() if "error" in x]  # beside the progress line
    assert "every session failed (2 of 2)" in line and "my model is not loaded" in line
    assert "--retry-failed" in line and "unexpected" not in line
    assert not list((tmp_path / "home").rglob("crash-*"))


def flaky_crs(history):
    """Fails while CRS_BROKEN is set: a CRS before and after its fix."""
    import os

    if os.environ.get("CRS_BROKEN"):
        raise RuntimeError("my model is not loaded")
    return echo_crs(history)


def test_retry_failed_runs_the_failed_sessions_again_in_the_same_run(tmp_path, monkeypatch):
    cfg = tmp_path / "flaky.toml"
    cfg.write_text(
        'sessions = 2\nturns = 3\n[[models]]\nname = "mine"\nkind = "callable"\n'
        'target = "tests.adaptation.test_shift_cli:flaky_crs"\n[judge]\nenabled = false\n'
    )
    run = ("shift", "run", str(cfg), "--out", str(tmp_path / "run"))
    monkeypatch.setenv("CRS_BROKEN", "1")
    assert crseval(*run, check=False).returncode == 1
    monkeypatch.delenv("CRS_BROKEN")
    assert crseval(*run, check=False).returncode == 1  # resumed: the failures are kept
    crseval(*run, "--retry-failed")
    sessions = pd.read_csv(tmp_path / "run" / "tables" / "shift_sessions.csv")
    assert len(sessions) == 2 and not sessions["failed"].any()


def test_resuming_sees_the_crs_module_and_nothing_else_beside_the_config(tmp_path):
    """The config's folder is not input data: a notes file beside it leaves the run resumable; an edit of
    the CRS's module file is refused, naming the field and the file."""
    (tmp_path / "my_crs.py").write_text(
        "def respond(history):\n    return 'How about Heat (1995)?'\n"
    )
    cfg = tmp_path / "mine.toml"
    cfg.write_text(
        'sessions = 1\nturns = 3\n[[models]]\nname = "mine"\nkind = "callable"\n'
        'target = "my_crs:respond"\n[judge]\nenabled = false\n'
    )
    run = tmp_path / "runs" / "a"
    crseval("shift", "run", str(cfg), "--out", str(run))
    (tmp_path / "notes.txt").write_text("an unrelated file")
    crseval("shift", "run", str(cfg), "--out", str(run))  # resumes
    (tmp_path / "my_crs.py").write_text(
        "def respond(history):\n    return 'How about Alien (1979)?'\n"
    )
    res = crseval("shift", "run", str(cfg), "--out", str(run), check=False)
    assert res.returncode == 2
    assert "different input data: models.0.target (my_crs.py@" in res.stderr


def test_the_shift_table_reads_at_80_columns(tmp_path):
    """At 80 columns the leading columns that fit, headers whole (once one letter per line); the rest are
    named, and --format markdown shows every column."""
    cfg = tmp_path / "shift.toml"
    cfg.write_text(CONFIG.replace("sessions = 2", "sessions = 1"))
    res = crseval("shift", "run", cfg, "--out", tmp_path / "run", columns=80)
    table = res.stdout.split("crseval:")[
        0
    ]  # the signature line after it is one long line by design
    assert max(map(len, table.splitlines())) <= 80
    assert "recovery_rate" in table and "│ template" in table
    assert "more column(s) than fit 80 columns" in res.stderr and "--format markdown" in res.stderr
    left = res.stderr.split("80 columns: ")[-1].split(" — ")[0].rstrip(", …").split(", ")
    md = crseval("shift", "run", cfg, "--out", tmp_path / "run", "--format", "markdown").stdout
    assert left and all(f"| {c} |" in md for c in left)


def test_imported_logs_can_have_their_wishes_read_by_an_llm(tmp_path):
    """--reader llm: one call per user turn, planned before anything runs (the scripted backend answers),
    and the reading is named in the signature."""
    turns = ["I want a comedy.", "How about one from the 1990s?", "Actually, a horror film."]
    convo = [u for t in turns for u in ({"speaker": "USER", "text": t}, {"speaker": "SYSTEM", "text": 'Try "Heat" (1995).'})]  # fmt: skip
    (tmp_path / "s.json").write_text(json.dumps({"model_name": "m", "conversation": convo}))
    args = ("shift", "score", str(tmp_path / "s.json"), "--kb", "sample", "--reader", "llm")
    args += ("--backend", "scripted", "--out", str(tmp_path / "o"))
    plan = crseval(*args, "--dry-run")
    assert "3 LLM calls" in plan.stdout + plan.stderr
    crseval(*args)
    sig = json.loads((tmp_path / "o" / "signature.json").read_text())["line"]
    assert "wishes:llm(scripted:scripted" in sig
    mm = pd.read_csv(tmp_path / "o" / "tables" / "model_metrics.csv")
    assert "follow.satisfaction" in set(mm["metric"])


def test_each_arena_crs_is_scored_against_its_own_catalogue(tmp_path):
    """`--kb x=…,y=…`: a CRS whose name ends with _y is read against y's catalogue — the same words
    follow the user's wish there and name nothing the sample catalogue holds."""

    def conv(crs, user):
        said = [("USER", "hi, I want a comedy"), ("AGENT", "Try Zyzzyva Nights, a comedy.")]
        turns = [{"participant": p, "utterance": u} for p, u in said]
        return {"conversation ID": f"{crs}_{user}", "agent": {"id": crs}, "conversation": turns}

    logs = tmp_path / "crs_arena_dial_open.json"
    logs.write_text(json.dumps([conv(c, u) for c in ("kbrd_x", "unicrs_y") for u in "abc"]))
    movies = tmp_path / "movies.csv"
    movies.write_text(
        "movieId,title,genres\n1,Zyzzyva Nights (2001),Comedy\n2,Grim Hall (1999),Horror\n"
    )
    out = tmp_path / "run"
    done = crseval(
        "shift", "score", logs, "--kb", f"x=sample,y={movies}", "--n-boot", "20", "--out", out
    )
    said = done.stdout + done.stderr
    assert "catalogue of *_x: sample-movies" in said and "*_y: movielens-movies" in said
    assert "data:x:sample-movies" in done.stdout  # the signature line, not an emoji
    sessions = load_run(out).tables["shift_sessions"]
    wish = sessions.groupby("system")["follow.wish_rate"].mean()
    assert wish["unicrs_y"] == 1.0 and wish["kbrd_x"] == 0.0
    assert load_run(out).signature["data"].startswith("x:sample-movies@")
    bad = crseval("shift", "score", logs, "--kb", "x=sample", "--out", tmp_path / "b", check=False)
    assert bad.returncode != 0 and "no catalogue for 'unicrs_y'" in bad.stderr
    refused = crseval("shift", "validate", out, "--out", tmp_path / "v", check=False)
    assert refused.returncode != 0 and "a catalogue per CRS" in refused.stderr


def test_fresh_without_out_starts_over_its_own_run_and_leaves_another_configurations(
    tmp_path, monkeypatch
):
    """`shift run` wrote every config into runs/shift: a second config was refused, and --fresh deleted
    whatever runs/shift held. Now a second config runs in runs/shift-2 and --fresh deletes only the
    folder holding its own configuration's run."""
    monkeypatch.chdir(tmp_path)
    for seed in (1, 2):
        (tmp_path / f"s{seed}.toml").write_text(
            f'seed = {seed}\nsessions = 1\nturns = 3\nn_boot = 0\n[[models]]\nname = "t"\n'
            'kind = "template"\n[judge]\nenabled = false\n'
        )
    crseval("shift", "run", "s1.toml")
    second = crseval("shift", "run", "s2.toml")
    assert "this one is in runs/shift-2" in second.stderr
    kept = (tmp_path / "runs" / "shift-2" / "records" / "results.jsonl").read_text()
    (tmp_path / "runs" / "shift" / "stale.txt").write_text("from before --fresh")
    crseval("shift", "run", "s1.toml", "--fresh")
    assert not (tmp_path / "runs" / "shift" / "stale.txt").exists()  # its own folder, started over
    assert (tmp_path / "runs" / "shift" / "records" / "results.jsonl").exists()
    assert (tmp_path / "runs" / "shift-2" / "records" / "results.jsonl").read_text() == kept
