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
