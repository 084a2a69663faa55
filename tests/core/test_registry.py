from pathlib import Path

import pytest

import crseval

from crseval.core.errors import CrsevalError
from crseval.core.registry import (
    JOINED,
    METRICS,
    TABLES,
    all_metrics,
    all_tables,
    get_metric,
    computing_modules,
    get_table,
    label,
    load_declarations,
    metrics_with,
    register_metric,
    register_table,
)


def test_registry_finds_metrics_by_name_with_parameters():
    register_metric("test.double", "twice the input", higher_is_better=False, params={"factor": 2})
    try:
        spec = get_metric("test.double")
        assert spec.higher_is_better is False
        assert spec.signature() == "test.double(factor=2)"
    finally:
        METRICS.pop("general.test.double")
    with pytest.raises(CrsevalError, match="unknown metric"):
        get_metric("nope")


def test_a_name_registered_twice_differently_is_refused():
    register_metric("test.once", "one")
    try:
        with pytest.raises(CrsevalError, match="twice"):
            register_metric("test.once", "another meaning")
    finally:
        METRICS.pop("general.test.once")


def test_every_capability_declares_its_metrics_and_tables():
    caps = {m.capability for m in all_metrics().values()}
    assert {"behavior", "shift", "reliability", "judge", "serendipity"} <= caps
    assert {
        "behavior_turns",
        "shift_sessions",
        "reliability",
        "meta_eval",
        "serendipity_answers",
    } <= set(all_tables())


def test_labels_and_directions_come_from_the_registry():
    assert label("explicit_ba") == "explicit BA (formula)"
    assert label("not-a-metric") == "not-a-metric"
    assert get_metric("serendipity.mae").higher_is_better is False


def test_names_are_qualified_by_capability():
    """Two capabilities may use the same column name; each is found by its qualified name."""
    assert get_metric("judge.pearson").capability == "judge"
    assert get_metric("pearson", "arena").qualified == "arena.pearson"
    with pytest.raises(CrsevalError, match="ambiguous"):
        get_metric("pearson")
    assert label("pearson", "judge") == "Pearson r"


def test_serendipity_evaluators_come_from_the_registry():
    from crseval.serendipity.proxies import PROXIES

    assert set(metrics_with("serendipity", "baseline")) == set(PROXIES)


def test_tas_parameters_are_declared_once():
    from crseval.adaptation.config import ScoringSection
    from crseval.adaptation.tas import TASParams

    assert get_metric("tas").params == TASParams().signature_params()
    assert ScoringSection().tas_params() == TASParams()
    assert TABLES["shift_sessions"].ids == ("system", "session")


def test_the_crs_is_called_system_in_every_table():
    """One name for the CRS: no table keys its rows by ``model`` (the shift tables did until 0.2; their
    old runs load renamed, tests/runs/test_old_runs.py), and ``model`` is only the LLM of ``llm_usage``."""
    from crseval.core.glossary import CONTEXT

    load_declarations()
    declares = [t for t in TABLES.values() if "model" in (*t.columns, *(c for c, *_ in t.context))]
    assert [t.name for t in declares] == ["llm_usage"] and "model" not in CONTEXT
    assert [t.name for t in TABLES.values() if "model" in t.ids] == ["llm_usage"]
    assert dict(TABLES["shift_turns"].renamed) == {"system": "reply", "model": "system"}


def test_every_metric_declares_its_scale():
    assert not [m.qualified for m in all_metrics().values() if not m.scale]
    assert get_metric("judge.pearson").scale == "−1…1"
    assert get_metric("serendipity.mae").scale == "Likert points"


@pytest.fixture
def test_table():
    register_table("t_joined", ["item"], "a test table", capability="t", columns=["n"])
    yield "t_joined"
    for name in [q for q in METRICS if q.startswith(("t.", "u."))]:
        METRICS.pop(name)
    TABLES.pop("t_joined")
    for t in ("t_joined", "t_nowhere"):
        JOINED.pop(t, None)


def test_a_metric_joins_the_tables_it_names(test_table, tmp_path):
    """The one-file recipe: a metric declared beside its computation names its table, and the table
    holds it — in the registry, the glossary and the strict column check of a written table."""
    import pandas as pd

    from crseval.core.glossary import column, undeclared
    from crseval.runs.store import RunStore

    register_metric("score_a", "a test metric", label="A", capability="t", tables=[test_table])
    register_metric("score_b", "another", capability="t", tables_with_ci=[test_table])
    register_metric("score_c", "of another room", capability="u", tables=[test_table])
    spec = get_table(test_table)
    assert spec.columns == ("n", "score_a", "score_b", "score_b_lo", "score_b_hi", "u.score_c")
    assert TABLES[test_table].columns == ("n",)  # the declaration itself is unchanged
    assert column(test_table, "score_a").label == "A"
    assert column(test_table, "score_b").ci == ("score_b_lo", "score_b_hi")
    assert (
        undeclared(test_table, ["item", "n", "score_a", "score_b_hi", "score_c"]) == ""
    )  # own name
    frame = pd.DataFrame({"item": [1], "score_a": [0.5], "score_b": [0.1]})
    RunStore(tmp_path / "run").write_table(test_table, frame)  # CRSEVAL_STRICT_TABLES is set here


def test_a_metric_naming_an_undeclared_table_is_refused(test_table):
    register_metric("score_x", "a test metric", capability="t", tables=["t_nowhere"])
    with pytest.raises(CrsevalError, match=r"t\.score_x → t_nowhere"):
        load_declarations()


def test_every_module_that_declares_metrics_is_named_by_its_capability():
    """A module outside ``metrics.py`` that declares a metric is imported because its capability names it
    (``declared_in``); one it forgot would leave its metrics out of every table, so the sources are read
    here (the registry itself imports, it never reads source text)."""
    root = Path(crseval.__file__).parent
    declaring = {
        ".".join(p.relative_to(root.parent).with_suffix("").parts)
        for p in root.glob("*/**/*.py")
        if p.name != "metrics.py" and "register_metric" in p.read_text(encoding="utf-8")
    } - {"crseval.core.registry"}
    assert declaring == set(computing_modules())
    assert {"crseval.dialogues.measures", "crseval.dialogues.matcher_check"} <= declaring


def test_the_dialogue_tables_hold_the_metrics_declared_where_they_are_computed():
    from crseval.dialogues.measures import BOUNDS, DIALOGUE_METRICS

    systems, per_dialogue = get_table("dialogue_systems"), get_table("dialogue_metrics")
    assert set(DIALOGUE_METRICS) <= set(per_dialogue.columns) & set(systems.columns)
    assert {f"{m}_lo" for m in BOUNDS} <= set(systems.columns)
    assert "coverage" in systems.columns and "coverage" not in per_dialogue.columns
    assert get_metric("matcher_recall", "dialogues").scale == "0–1"
