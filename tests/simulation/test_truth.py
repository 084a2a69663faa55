"""Every truth a simulated user logs is the declared record (crseval.core.types.TurnTruth): its keys and
the types of their values, for the realistic and the scripted user, against a follower and an ignorer."""

import types
import typing

import pytest

from crseval.core.types import TurnTruth, truth_of
from crseval.simulation.config import SessionSpec
from crseval.simulation.session import run_session

MODELS = [
    {"name": "template", "kind": "template"},
    {"name": "stubborn", "kind": "reference", "reference": "stubborn"},
]


def _conforms(value, kind) -> bool:
    if kind is typing.Any:
        return True
    origin = typing.get_origin(kind)
    if origin is typing.NotRequired:
        return _conforms(value, typing.get_args(kind)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, k) for k in typing.get_args(kind))
    if origin is list:
        (item,) = typing.get_args(kind)
        return isinstance(value, list) and all(_conforms(v, item) for v in value)
    return isinstance(value, kind) if kind is not type(None) else value is None


@pytest.mark.parametrize("user", ["realistic", "scripted"])
def test_every_logged_truth_is_the_declared_record(user):
    spec = SessionSpec(seed=7, turns=12, models=MODELS, simulator={"user": user})
    hints = typing.get_type_hints(TurnTruth, include_extras=True)
    seen = set()
    for model in ("template", "stubborn"):
        for s in range(12):
            for turn in run_session(spec, model, s)["turns"]:
                truth = truth_of(turn)
                assert TurnTruth.__required_keys__ <= set(truth) <= set(hints), set(truth)
                for k, v in truth.items():
                    assert _conforms(v, hints[k]), (k, v)
                seen |= set(truth)
    assert seen >= TurnTruth.__required_keys__
    if user == "realistic":  # what only the realistic user says is logged too
        assert {"act", "end"} <= seen


def test_a_turn_no_simulator_logged_has_no_truth():
    assert truth_of({"user": "hi", "system": "hello"}) is None
