import pandas as pd
import pytest

from crseval.core.errors import CrsevalError
from crseval.core.glossary import (
    column,
    declared_columns,
    describe,
    metric_columns,
    renamed,
    undeclared,
)
from crseval.core.registry import METRICS, TABLES, all_tables, register_metric, register_table
from crseval.runs.store import RunStore


def test_registered_metric_uses_its_label_and_description():
    label, text = describe("explicit_ba")
    assert label == "explicit BA (formula)" and "published" in text


def test_context_and_derived_columns():
    assert describe("eta_squared")[0] == "η²"
    label, text = describe("rel_k_lo")
    assert label.endswith(" lo") and text.startswith("lower end of the 95 % CI of")
    assert describe("pearson_r_p")[1].startswith("p-value of")
    assert describe("tagger") == (
        "tagger",
        "strategy tagger (classifier or LLM prompt)",
    )  # a room's column


def test_unknown_column_has_no_description():
    assert describe("no_such_column_at_all") == ("no_such_column_at_all", "")


def test_a_column_means_what_its_table_declares():
    """The same column name means different things in different capabilities' tables."""
    judge = column("meta_eval", "pearson")
    arena = column("arena_agreement", "pearson")
    satisfaction = column("arena_satisfaction_agreement", "pearson")
    assert judge.metric == "judge.pearson" and "human label" in judge.description
    assert arena.metric == "arena.pearson" and "vote sets" in arena.description
    assert satisfaction.metric == "arena.satisfaction_pearson"
    assert "satisfied" in satisfaction.description
    # serendipity's rank is its own context column, not the arena's Bradley–Terry rank
    assert "Bradley" not in describe("rank", "serendipity_meta_eval")[1]
    assert column("arena_ratings", "rank").metric == "arena.rank"


def test_ci_partners_are_declared_with_their_column():
    c = column("meta_eval", "pearson")
    assert c.ci == ("pearson_lo", "pearson_hi")
    lo = column("meta_eval", "pearson_lo")
    assert lo.higher_is_better is None and lo.description.startswith("lower end")
    # a CI end is not a comparable metric; the metric it belongs to is
    assert metric_columns("meta_eval", ["pearson", "pearson_lo", "n", "aspect"]) == ["pearson"]


def test_every_declaration_resolves_and_every_headline_column_is_declared():
    for name, spec in all_tables().items():
        declared = declared_columns(spec)
        assert all(declared.values()), (
            name,
            [e for e, c in declared.items() if c is None],
        )
        names = {c.name for c in declared.values()} | {p for p, _ in spec.dynamic}
        assert set(spec.headline) <= names | set(spec.ids), name


def test_a_headline_pattern_shows_the_columns_named_after_data():
    """The card's columns are named after the systems: its headline's "*" shows them (and no declared
    column it does not name), in the table's order."""
    from crseval.core.registry import shown_columns

    cols = ["dimension", "label", "my_crs", "vs template", "known groups", "trust", "metric"]
    assert shown_columns("card", cols) == [
        "dimension", "metric", "label", "my_crs", "vs template", "known groups",
    ]  # fmt: skip


def test_writing_an_undeclared_column_fails_under_the_test_suite(tmp_path, monkeypatch):
    register_metric("score_x", "a test metric", capability="t")
    register_table("t_table", ["item"], "a test table", capability="t", columns=["score_x"])
    try:
        assert undeclared("t_table", ["item", "score_x"]) == ""
        assert "other" in undeclared("t_table", ["item", "score_x", "other"])
        assert "not declared" in undeclared("t_nowhere", ["item"])
        store = RunStore(tmp_path / "run")
        store.write_table("t_table", pd.DataFrame({"item": [1], "score_x": [0.5]}))
        with pytest.raises(CrsevalError, match="does not declare column"):
            store.write_table("t_table", pd.DataFrame({"item": [1], "surprise": [0.5]}))
        monkeypatch.delenv("CRSEVAL_STRICT_TABLES")  # a user's run: written, and warned about
        store.write_table("t_table", pd.DataFrame({"item": [1], "surprise": [0.5]}))
        assert "surprise" in (tmp_path / "run" / "run.log").read_text()
    finally:
        METRICS.pop("t.score_x")
        TABLES.pop("t_table")


def test_pattern_entries_declare_columns_named_after_data():
    engagement = column("reliability_correlations", "engagement")
    assert engagement.label == "engagement" and "correlation" in engagement.description
    # a dimension named like another capability's metric is still a dimension here
    assert "Spearman" in column("reliability_correlations", "satisfaction").description
    assert column("reliability", "engagement") is None


def test_one_ci_and_p_value_naming_with_the_old_names_deprecated():
    assert renamed("ci_low") == "ci_lo" and renamed("bt_high") == "bt_hi"
    assert renamed("p_value") == "p" and renamed("p_adj") == "p_tukey"
    assert renamed("ci_lo") is None and renamed("low") is None
    label, text = describe("kappa_ci_low", "pair_cv")
    assert label == describe("kappa_lo", "pair_cv")[0] and "deprecated" in text
    # no declared table still uses an old name
    for spec in all_tables().values():
        assert not [c for c in (*spec.ids, *spec.columns) if renamed(c)], spec.name


def _context_uses() -> dict[str, set[str]]:
    """context column → the rooms whose tables hold it as context (not as a metric), CI/p partners counted"""
    from crseval.core.glossary import PARTNERS

    uses: dict[str, set[str]] = {}
    for spec in all_tables().values():
        for entry, meaning in declared_columns(spec).items():
            if meaning is None or meaning.metric or "=" in entry:
                continue
            stems = [entry] + [entry[: -len(s)] for s, _ in PARTNERS if entry.endswith(s)]
            for stem in stems:
                uses.setdefault(stem, set()).add(spec.capability)
    return uses


def test_each_room_declares_its_own_context_columns_and_uses_them():
    """A room's context columns (ids, counts, settings) live in its metrics.py, and each is held by one
    of its tables; no room restates a shared entry."""
    from crseval.core.glossary import CONTEXT
    from crseval.core.registry import COLUMNS

    uses = _context_uses()
    assert {"shift", "behavior", "judge", "arena", "card", "general"} <= set(COLUMNS)
    for room, columns in COLUMNS.items():
        unused = [c for c in columns if room not in uses.get(c, set())]
        assert not unused, f"{room} declares columns none of its tables holds: {unused}"
        assert not [c for c in columns if CONTEXT.get(c) == columns[c]]


def test_the_shared_glossary_keeps_terms_more_than_one_room_uses_or_statistics():
    from crseval.core.glossary import CONTEXT

    uses = _context_uses()
    one_room = sorted(c for c in CONTEXT if len(uses.get(c, set())) < 2)
    # statistical terms stay shared even where one room's tables hold them today
    statistics = {"F", "df_between", "df_within", "eta_squared", "statistic", "test", "note"}
    statistics |= {"group1", "group2", "meandiff", "p_tukey", "lower", "upper", "reject"}
    statistics |= {"difference", "pearson_r", "pearson_p", "spearman_p", "f1", "mean", "p"}
    assert set(one_room) <= statistics | {"ci_lo", "ci_hi"}, set(one_room) - statistics


def test_no_name_means_two_things_in_the_shared_glossary():
    """`system` was "the CRS's response at the same turn" in the card's tables, which hold its name; `user`
    an id or an utterance. Now the shared entry is the name / the id, and the tables that hold words
    declare their own."""
    from crseval.core.glossary import CONTEXT

    assert not [c for c, (_, text) in CONTEXT.items() if " or the " in text and "(" in text]
    assert column("card_scores", "system").description == "the CRS the row is about (its name)"
    assert (
        column("arena_ratings", "system").description == column("card_scores", "system").description
    )
    assert "words" in column("shift_turns", "user").description
    assert column("shift_sessions", "user").description == "user id"
    assert "response" in column("behavior_turns", "system").description
    assert "LLM" in column("llm_usage", "model").description
    assert (
        column("model_metrics", "system").description == column("card_scores", "system").description
    )
    assert "reply" in column("shift_turns", "reply").label


def test_a_table_may_give_a_column_its_own_meaning():
    spec = register_table(
        "toy_context_table",
        ["system"],
        "a toy table",
        capability="toy",
        columns=["n"],
        context={"system": ("reply", "the toy CRS's reply")},
    )
    try:
        assert column("toy_context_table", "system").label == "reply"
        assert column("toy_context_table", "n").description == describe("n")[1]
        assert declared_columns(spec)["system"].description == "the toy CRS's reply"
    finally:
        TABLES.pop("toy_context_table")
