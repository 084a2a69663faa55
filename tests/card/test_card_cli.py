"""`crseval evaluate-crs`: the report card, as a user runs it (in process)."""

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli import crseval
from tests.support.runs import listed_figures

ROOT = Path(__file__).resolve().parents[2]
SMALL = ("--sessions", "24", "--turns", "8", "--n-boot", "200")


def stubborn_crs(history):
    return {"text": "How about The Matrix? It is a classic.", "constraints": {}}


def silent_crs(history):
    return {"text": "Tell me more about what you feel like watching tonight.", "constraints": {}}


def flaky_crs(history):
    """Fails while CRS_BROKEN is set: a CRS before and after its fix."""
    import os

    if os.environ.get("CRS_BROKEN"):
        raise RuntimeError("my model is not loaded")
    return stubborn_crs(history)


def broken_crs(history):
    raise RuntimeError("my model is not loaded")


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    """The shipped example CRS, --no-llm, small, on an 80-column terminal."""
    out = tmp_path_factory.mktemp("card") / "run"
    res = crseval(
        "evaluate-crs", ROOT / "examples" / "my_crs.py", "--no-llm", *SMALL, "--out", out,
        columns=80,
    )  # fmt: skip
    return out, res


def test_the_card_prints_every_dimension_with_cis_and_the_known_groups(card):
    out, res = card
    assert "Report card: my_crs" in res.stdout
    for label in (
        "follow rate",
        "TAS",
        "repetition",
        "implicit BA",
        "template",
        "stubborn",
        "known",
        "real",
    ):
        assert label in res.stdout  # a narrow terminal wraps a header between its words
    assert "more column(s) than fit" not in res.stderr  # 80 columns show every column
    columns = pd.read_csv(out / "tables" / "card.csv").columns
    assert {"vs template", "vs stubborn", "known groups", "real users"} <= set(columns)
    assert "vs llm" not in res.stdout and "personalization" not in res.stdout  # --no-llm
    assert (out / "report.html").is_file() and "card_differences" in listed_figures(out)
    for part in ("shift", "dialogues", "behavior/my_crs", "behavior/template", "behavior/stubborn"):
        assert (out / part / "report.html").is_file(), part
    dialogues = json.loads((out / "dialogues" / "config.json").read_text())  # handed the sessions
    assert dialogues["config"]["data"] == [] and "needs.shift" in dialogues["data"]


def test_the_card_scores_are_the_parts_own_numbers(card):
    """The CRS's follow rate on the card is the shift run's own per-model mean; its repetition the dialogue
    measures' own per-system mean; its implicit BA the behavior run's own value."""
    out, _ = card
    scores = pd.read_csv(out / "tables" / "card_scores.csv").set_index(["metric", "system"])["mean"]
    shift = pd.read_csv(out / "shift" / "tables" / "model_metrics.csv")
    mine = shift[(shift["system"] == "my_crs") & (shift["metric"] == "follow.follow_rate")][
        "mean"
    ].item()
    assert scores["shift.follow.follow_rate", "my_crs"] == pytest.approx(mine)
    systems = pd.read_csv(out / "dialogues" / "tables" / "dialogue_systems.csv").set_index("system")
    assert scores["dialogues.repetition_rate", "template"] == pytest.approx(
        systems.loc["template", "repetition_rate"]
    )
    ba = pd.read_csv(out / "behavior" / "my_crs" / "tables" / "behavior_metrics.csv")
    assert scores["behavior.implicit_ba", "my_crs"] == pytest.approx(ba["implicit_ba"].item())


def test_following_passes_its_known_groups_and_tas_does_not_lead(card):
    out, _ = card
    ev = pd.read_csv(out / "tables" / "card_evidence.csv").set_index("metric")
    assert ev.loc["shift.follow.follow_rate", "verdict"] == "held"
    assert (
        ev.loc["dialogues.out_of_catalogue_rate", "verdict"] == "held"
    )  # template vs hallucinator
    assert ev.loc["shift.tas", "auc"] < ev.loc["shift.follow.follow_rate", "auc"]
    card = pd.read_csv(out / "tables" / "card.csv")
    assert (
        card["metric"].iloc[0] == "shift.follow.follow_rate"
    )  # the headline is verified following


def test_the_real_users_column_carries_the_criterion_measured_on_crsarena_dial(card):
    from crseval import validated

    out, res = card
    recorded = validated.load("criterion").row(metric="dialogues.out_of_catalogue_rate")
    ev = pd.read_csv(out / "tables" / "card_evidence.csv").set_index("metric")
    ooc = ev.loc["dialogues.out_of_catalogue_rate"]
    assert ooc["criterion_verdict"] == "reversed" and ooc["label_auc"] == recorded["label_auc"]
    assert ev.loc["behavior.implicit_ba", ["label_auc", "criterion_verdict"]].isna().all()
    cells = pd.read_csv(out / "tables" / "card.csv").set_index("metric")["real users"]
    auc, votes = recorded["label_auc"], recorded["vote_agreement"]
    assert cells[ooc.name] == f"REVERSED {auc:.2f} · {votes:.0%}".replace(" 0.", " .")
    assert cells["behavior.implicit_ba"] == "—"
    assert "CRSArena-Dial" in res.stderr + res.stdout


def test_a_crs_that_ignores_the_user_ranks_below_the_template_on_adaptation(tmp_path):
    res = crseval(
        "evaluate-crs",
        "tests.card.test_card_cli:stubborn_crs",
        "--no-llm",
        "--against",
        "template",
        *SMALL,
        "--out",
        tmp_path / "run",
        "--format",
        "json",
    )
    payload = json.loads(res.stdout.split("\nreport:")[0])
    card = {r["label"]: r for r in payload["result"]}
    # what the card rests on: crseval's figures for its simulated users against real ones
    assert any(
        n.startswith("Simulated users (crseval's realistic users)") for n in payload["notes"]
    )
    follow = card["follow rate (verified)"]["vs template"]
    assert follow.startswith("-") and follow.rstrip("*").endswith("]")
    cmp = pd.read_csv(tmp_path / "run" / "tables" / "card_comparisons.csv").set_index("metric")
    row = cmp.loc["shift.follow.follow_rate"]
    assert row["reference"] == "template" and row["diff_hi"] < 0 and row["p"] < 0.05
    # the smallest difference its 24 users could detect: 2.8 standard errors of this one
    se = (row["diff_hi"] - row["diff_lo"]) / 3.92
    assert row["mdd"] == pytest.approx(2.8 * se, rel=0.01)


def test_a_crs_that_never_names_a_film_is_said_in_one_line_and_ranks_below_on_following(tmp_path):
    res = crseval(
        "evaluate-crs", "tests.card.test_card_cli:silent_crs", "--no-llm", "--against", "template",
        *SMALL, "--out", tmp_path / "run", "--format", "json",
    )  # fmt: skip
    payload = json.loads(res.stdout.split("\nreport:")[0])
    line = next(n for n in payload["notes"] if n.startswith("silent_crs has no score on"))
    assert "out-of-catalogue" in line and "named no title in any session" in line
    card = pd.read_csv(tmp_path / "run" / "tables" / "card.csv").set_index("metric")
    for metric in ("dialogues.out_of_catalogue_rate", "dialogues.repetition_rate"):
        assert card.loc[metric, "n"] == "0/24" and card.loc[metric, "silent_crs"].startswith("—")
    cmp = pd.read_csv(tmp_path / "run" / "tables" / "card_comparisons.csv").set_index("metric")
    assert cmp.loc["shift.follow.follow_rate", "diff_hi"] < 0  # below the template, not above


def test_after_a_fix_retry_failed_completes_the_card_in_the_same_run_directory(
    tmp_path, monkeypatch
):
    args = (
        "evaluate-crs",
        "tests.card.test_card_cli:flaky_crs",
        "--no-llm",
        "--against",
        "template",
    )
    small = ("--sessions", "6", "--turns", "6", "--n-boot", "100", "--out", tmp_path / "run")
    monkeypatch.setenv("CRS_BROKEN", "1")
    assert crseval(*args, *small, check=False).returncode == 1  # every session failed
    monkeypatch.delenv("CRS_BROKEN")
    resumed = crseval(*args, *small, check=False)  # resumed: the failures are kept
    assert resumed.returncode == 1 and "my model is not loaded" in resumed.stderr
    crseval(*args, *small, "--retry-failed")
    sessions = pd.read_csv(tmp_path / "run" / "shift" / "tables" / "shift_sessions.csv")
    assert not sessions["failed"].any() and (sessions["system"] == "flaky_crs").sum() == 6
    card = pd.read_csv(tmp_path / "run" / "tables" / "card.csv").set_index("metric")
    assert card.loc["shift.tas", "n"] == "6/6"


def test_a_crs_that_always_fails_ends_in_one_line_with_its_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path / "home"))
    res = crseval(
        "evaluate-crs",
        "tests.card.test_card_cli:broken_crs",
        "--no-llm",
        *SMALL,
        "--out",
        tmp_path / "run",
        check=False,
    )
    assert res.returncode == 1
    (line,) = [x for x in res.stderr.splitlines() if "error" in x]
    assert "broken_crs failed in every session" in line and "my model is not loaded" in line
    assert not list((tmp_path / "home").rglob("crash-*"))


def test_a_misspelt_target_fails_at_once_naming_it(tmp_path):
    res = crseval("evaluate-crs", "tests.card.test_card_cli:no_such", "--dry-run", check=False)
    assert res.returncode == 2 and "no_such" in res.stderr and "stubborn_crs" in res.stderr
    res = crseval("evaluate-crs", "my_crs:respond", "--name", "template", "--no-llm", check=False)
    assert res.returncode == 2 and "name" in res.stderr
    # a catalogue that is not there, or not a catalogue, is refused before any work (a dry run too)
    crs = ROOT / "examples" / "my_crs.py"
    res = crseval("evaluate-crs", crs, "--kb", tmp_path / "nope.json", "--dry-run", check=False)
    assert res.returncode == 2 and "catalogue not found" in res.stderr and "nope.json" in res.stderr
    dialogues = tmp_path / "dialogues.json"
    dialogues.write_text('[{"conversation": []}]', encoding="utf-8")
    res = crseval("evaluate-crs", crs, "--kb", dialogues, "--no-llm", "--dry-run", check=False)
    assert res.returncode == 2 and "not a movie catalogue" in res.stderr


def test_with_an_llm_the_card_adds_the_llm_reference_and_the_judge(tmp_path):
    """The scripted backend stands in for the LLM; a second run resumes with nothing left to call."""
    out = tmp_path / "run"
    args = (
        "evaluate-crs",
        ROOT / "examples" / "my_crs.py",
        "--sessions",
        "6",
        "--turns",
        "4",
        "--n-boot",
        "100",
        "--llm-sessions",
        "2",
        "--llm-turns",
        "3",
        "--llm-contexts",
        "1",
        "--backend",
        "scripted",
        "--out",
        out,
    )
    res = crseval(*args, "--format", "csv")
    card = pd.read_csv(out / "tables" / "card.csv")
    assert "vs llm" in card and "shift.personalization" in set(card["metric"])
    judged = card.set_index("metric").loc["shift.personalization", "label"]
    assert judged.endswith(" §")  # the judge's row, and the note says how far to trust it
    assert "§ the judge on CRSs it never met" in res.stderr + res.stdout
    assert (out / "shift-llm" / "report.html").is_file() and (out / "behavior" / "llm").is_dir()
    assert "plan:" in res.stderr
    again = crseval(*args, "--dry-run")
    assert "0 to make" in again.stderr or "no LLM calls" in again.stderr
    crseval(
        *args, "--format", "csv"
    )  # resuming a finished card: its parts read each other unchanged
    pd.testing.assert_frame_equal(pd.read_csv(out / "tables" / "card.csv"), card)


FIXME = """
def respond(history):
    print("DEBUG: got", len(history), "turns")
    if len(history) > 3 and len(history[0]["text"]) % 2:
        raise RuntimeError("my model is not loaded")
    return "How about The Matrix? It is a classic."
"""


def test_a_fixed_crs_file_reruns_exactly_its_failed_sessions_and_says_which_version_answered(
    tmp_path, monkeypatch
):
    """Issue #92: the file's content is the run's input, and fixing it refused --retry-failed."""
    monkeypatch.chdir(tmp_path)
    crs = tmp_path / "fixme.py"
    crs.write_text(FIXME)
    args = ("evaluate-crs", "fixme.py", "--no-llm", "--against", "template", "--sessions", "12")
    args += ("--turns", "6", "--n-boot", "100", "--out", tmp_path / "run")
    first = crseval(*args, check=False)
    assert first.returncode == 1 and "--retry-failed" in first.stderr
    shift = tmp_path / "run" / "shift"
    before = [json.loads(x) for x in (shift / "records" / "results.jsonl").read_text().splitlines()]
    mine = [r for r in before if r["model"] == "fixme"]
    failed = {r["key"] for r in mine if r.get("errors")}
    assert 0 < len(failed) < len(mine)
    crs.write_text(FIXME.replace('raise RuntimeError("my model is not loaded")', "pass  # fixed"))
    crseval(*args, "--retry-failed")
    after = [json.loads(x) for x in (shift / "records" / "results.jsonl").read_text().splitlines()]
    old, new = {r["code"] for r in mine}.pop(), None
    for r in after:
        if r["model"] != "fixme":
            continue
        assert not r.get("errors")
        if r["key"] in failed:
            new = r["code"]
            assert new != old  # run again by the fixed file
        else:  # kept as it was, answered by the first version
            assert r == next(b for b in before if b["key"] == r["key"])
    config = json.loads((shift / "config.json").read_text())
    assert config["revisions"][0]["field"] == "models.0.target"
    assert (config["revisions"][0]["from"], config["revisions"][0]["to"]) == (old, new)
    signature = json.loads((shift / "signature.json").read_text())
    assert signature["answered_by"] == {"fixme": {old: len(mine) - len(failed), new: len(failed)}}
    assert "answered_by" in signature["line"]
    card = pd.read_csv(tmp_path / "run" / "tables" / "card.csv").set_index("metric")
    assert card.loc["shift.tas", "n"] == "12/12"


def test_what_a_crs_prints_goes_to_the_run_log_and_json_stays_one_document(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chatty.py").write_text(FIXME.replace("raise RuntimeError", "print"))
    res = crseval(
        "evaluate-crs", "chatty.py", "--no-llm", "--against", "template", "--sessions", "4",
        "--turns", "4", "--n-boot", "100", "--out", tmp_path / "run", "--format", "json",
    )  # fmt: skip
    document = json.loads(res.stdout)  # nothing before or after it
    assert document["signature"] and "DEBUG" not in res.stdout + res.stderr
    log = (tmp_path / "run" / "shift" / "run.log").read_text()
    assert "CRS chatty printed: DEBUG: got 1 turns" in log
    assert (
        "CRS system printed: DEBUG"
        in (tmp_path / "run" / "behavior" / "chatty" / "run.log").read_text()
    )


def test_thin_evidence_gives_no_verdict_and_every_row_says_what_it_rests_on(tmp_path):
    """Issue #92: 2 sessions a system printed 'held 1.00 [1.00, 1.00]'; the terminal cut n, hid the
    reference pair and the illustrative contexts; the caption called every pair follows/ignores."""
    from crseval.stats.paired import MIN_GROUP

    out = tmp_path / "run"
    args = ("evaluate-crs", ROOT / "examples" / "my_crs.py", "--no-llm", "--against", "template")
    args += ("--sessions", "2", "--turns", "6", "--n-boot", "100", "--out", out)
    for columns in (80, 120):
        res = crseval(*args, columns=columns)
        assert "more column(s) than fit" not in res.stderr
        head = res.stdout.split("crseval:")[0]
        assert " n " in head and "2/2" in head and "8/8" in head  # each row's units
        assert "held" not in head and "FAILED" not in head  # (REVERSED: real users, a record)
        assert head.count("few") >= 6 and "hallucinator" in head and "stubborn" in head
        assert head.count("‡") == 2 and "‡: rests on crseval's bundled 8" in res.stderr
        assert "whichever systems you compared with" in res.stderr
    card = pd.read_csv(out / "tables" / "card.csv").set_index("metric")
    cell = card.loc["dialogues.out_of_catalogue_rate", "known groups"]
    assert cell == "template > hallucinator: too few sessions"
    evidence = pd.read_csv(out / "tables" / "card_evidence.csv").set_index("metric")
    assert f"it needs {MIN_GROUP} a system" in evidence.loc["shift.tas", "evidence"]
    html = (out / "report.html").read_text()
    assert "too few sessions" in html and "held 1.00" not in html
    crseval("report", out, "--latex")
    tex = (out / "paper" / "card.tex").read_text()
    assert "too few sessions" in tex and "held" not in tex
    assert "template above hallucinator" in tex  # the caption names each pair
