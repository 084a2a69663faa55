import pytest

from crseval.core.errors import CrsevalError
from crseval.core.registry import (
    METRICS,
    TABLES,
    all_metrics,
    all_tables,
    get_metric,
    label,
    metrics_with,
    register_metric,
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
    assert TABLES["shift_sessions"].ids == ("model", "session")


def test_every_metric_declares_its_scale():
    assert not [m.qualified for m in all_metrics().values() if not m.scale]
    assert get_metric("judge.pearson").scale == "−1…1"
    assert get_metric("serendipity.mae").scale == "Likert points"
