"""The shipped records of validated figures: readable, complete, and what the package prints from them."""

import pytest

from crseval import validated
from crseval.core.errors import CrsevalError


def test_every_shipped_record_names_its_command_key_and_figures_its_check_declares():
    from tools.validity_checks import CHECKS

    names = sorted(p.stem for p in validated.HOME.glob("*.json"))
    assert {"criterion", "criterion_judge", "simulated_users"} <= set(names)
    for name in names:
        r = validated.load(name)
        assert r.check == name and r.command and r.rows, name
        assert all(set(r.key) <= set(row) for row in r.rows), name
        assert name in CHECKS, f"{name}: no check of the validity gate produces this record"
        declared = set(r.key) | set(CHECKS[name].tolerance)
        assert all(set(row) <= declared for row in r.rows), name
        assert set(r.target) <= set(CHECKS[name].tolerance) and (not r.target or r.known), name
        assert r.command == CHECKS[name].command.format(data="../shared/data"), name


def test_the_gate_runs_the_command_it_prints(monkeypatch):
    """Issue #95: a check's printed command is the one that ran — the CLI parses it into the job and
    config the gate runs (here stopped before it runs), and a command that is no job's is refused."""
    import dataclasses
    from pathlib import Path

    import pandas as pd

    import crseval.api as api
    from crseval.cli.main import parse_command
    from tools.validity_checks import CHECKS, ROOT

    ran = []

    def evaluate(job, config):
        ran.append((job, config))
        return type("R", (), {"tables": {"t": pd.DataFrame({"metric": ["x"]})}})()

    monkeypatch.setattr(api, "evaluate", evaluate)
    monkeypatch.chdir(ROOT)
    DATA = "../shared/data"
    for name, check in CHECKS.items():
        if not check.table:
            continue
        job, config = parse_command(check.command.format(data=DATA).split()[1:])
        ran.clear()
        dataclasses.replace(check, table="t", keep=None).run(Path(DATA))
        assert ran == [(job.name, config)], name
    with pytest.raises(CrsevalError, match="runs no job"):
        parse_command(["data", "list"])


def test_a_record_without_a_check_is_caught(tmp_path, monkeypatch):
    import shutil

    home = tmp_path / "records"
    shutil.copytree(validated.HOME, home, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (home / "orphan.json").write_text(
        (home / "arena.json").read_text().replace('"arena"', '"orphan"')
    )
    monkeypatch.setattr(validated, "HOME", home)
    with pytest.raises(AssertionError, match="orphan: no check"):
        test_every_shipped_record_names_its_command_key_and_figures_its_check_declares()


def test_a_missing_record_is_one_line_with_its_fix():
    with pytest.raises(CrsevalError, match="no record") as e:
        validated.load("nothing-like-it")
    assert "make validate" in str(e.value)


def test_the_card_and_the_simulator_line_print_the_recorded_figures():
    from crseval.adaptation.user_validity import simulator_evidence
    from crseval.card.real_users import evidence, real_users, source

    row = validated.load("criterion").row(metric="shift.follow.wish_rate")
    assert evidence("shift.follow.wish_rate")["label_auc"] == row["label_auc"]
    assert real_users("shift.follow.wish_rate").endswith(f"· {row['vote_agreement']:.0%}")
    assert real_users("behavior.implicit_ba") == "—" and evidence("behavior.implicit_ba") == {}
    assert real_users("shift.personalization").startswith("YES")  # criterion_judge's record
    assert f"{row['battles'] + row['battles_tied']}" in source() or "decided battles" in source()
    sims = validated.load("simulated_users")
    panel = [r for r in sims.rows if r["user"] == "realistic" and r["source"] == "template"]
    worst = max(panel, key=lambda r: r["discriminator_auc"])  # the panel's best discriminator
    line = simulator_evidence("realistic")
    assert f"{worst['discriminator_auc']:.2f}".replace("0.", ".") in line and "shared half" in line
    assert worst["member"] in line
    repeats = {
        r["source"]: r["repeated_share"]
        for r in sims.rows
        if r["user"] == "realistic" and r["source"].startswith("repeats: ")
    }
    said = f"another dialogue: template {repeats['repeats: template']:.0%} "
    assert said + f"(real users {repeats['repeats: real users']:.0%})" in line
    crowds = next(
        r
        for r in sims.rows
        if r["source"] == "crs_arena_dial_open.json" and r["member"] == worst["member"]
    )  # what real people meet: the arena's open crowd against its closed crowd, by the same member
    assert (
        f"two crowds of real users are told apart at {crowds['discriminator_auc']:.2f}".replace(
            "0.", "."
        )
        in line
    )
    assert "not compared" in simulator_evidence("realistic", phrases="mine.toml")
    # users an LLM rewrote: the shipped figures are not theirs
    rewritten = simulator_evidence("realistic", rewritten=True)
    assert "rewritten by an LLM" in rewritten and "not compared" in rewritten
    assert f"{worst['discriminator_auc']:.2f}".replace("0.", ".") not in rewritten
