"""Session-log importer and configs under hypothesis fuzzing: malformed input ends in a CrsevalError
naming the file (and field where there is one) — never a traceback, never a partial silent result."""

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crseval.adaptation.config import ShiftConfig
from crseval.data.session_logs import import_logs
from crseval.core.config import load_config
from crseval.core.errors import CrsevalError

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
GOOD = {
    "model_name": "m",
    "true_genre": "comedy",
    "conversation": [
        {"speaker": "User", "text": "a comedy"},
        {"speaker": "System", "text": "Try Superbad."},
    ],
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4)
    ),
    max_leaves=12,
)


def _mutations():
    keys = ["model_name", "true_genre", "conversation"]
    return st.one_of(
        st.builds(lambda k, v: {**GOOD, k: v}, st.sampled_from(keys), json_values),  # wrong types
        st.builds(
            lambda k: {x: y for x, y in GOOD.items() if x != k}, st.sampled_from(keys)
        ),  # missing keys
        st.builds(
            lambda i, k, v: {
                **GOOD,
                "conversation": [
                    {**u, k: v} if j == i else u for j, u in enumerate(GOOD["conversation"])
                ],
            },
            st.integers(0, 1),
            st.sampled_from(["speaker", "text"]),
            json_values,
        ),  # bad utterances
        json_values,
    )  # anything at all


@SETTINGS
@given(obj=_mutations())
def test_mutated_session_files(tmp_path, obj):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(obj))
    try:
        sessions, notes = import_logs(p)
    except CrsevalError as e:
        assert e.file
        assert "s.json" in e.file
        return
    for s in sessions:  # whatever was accepted is complete
        assert s["model"]
        assert s["turns"]
        assert all(isinstance(t["user"], str) and isinstance(t["system"], str) for t in s["turns"])


@SETTINGS
@given(
    data=st.binary(max_size=300)
    | st.sampled_from(
        [
            b"",
            b"\xff\xfe{",
            b"{" * 5000,
            b'{"model_name": "m"',
            json.dumps(GOOD).encode()[:-7],
            b"[]",
            b"null",
        ]
    )
)
def test_raw_bytes(tmp_path, data):
    p = tmp_path / "s.json"
    p.write_bytes(data)
    with pytest.raises(CrsevalError) as e:
        import_logs(p)
    assert "s.json" in str(e.value)


@SETTINGS
@given(
    lines=st.lists(
        st.sampled_from(
            [
                '{"key": "a", "model": "m", "turns": []}',
                '{"key": "a"}',
                "[1, 2]",
                '{"key": "b", "model": "m", "turns": [{"user": 1, "system": "x"}]}',
                '{"key": "c", "model": "m", "turns": [{"user": "u", "system": "s"}]}',
                '{"trunc',
                "",
            ]
        ),
        min_size=1,
        max_size=6,
    )
)
def test_own_records_jsonl(tmp_path, lines):
    p = tmp_path / "results.jsonl"
    p.write_text("\n".join(lines))
    try:
        sessions, _ = import_logs(p)
    except CrsevalError as e:
        assert (
            "results.jsonl" in str(e)
            and e.line is not None
            or "duplicated" in str(e)
            or "empty" in str(e)
        )
        return
    assert sessions
    assert all(s["key"] == "c" and s["turns"] for s in sessions)


def test_duplicated_sessions_are_refused(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([GOOD, GOOD]))
    (tmp_path / "b.json").write_text(json.dumps(GOOD))
    sessions, _ = import_logs(tmp_path / "a.json")  # a#0 and a#1: two sessions of one file
    assert [s["key"] for s in sessions] == ["m|a#0", "m|a#1"]
    p = tmp_path / "dups.jsonl"
    rec = json.dumps({"key": "m|1", "model": "m", "turns": [{"user": "u", "system": "s"}]})
    p.write_text(rec + "\n" + rec + "\n")
    with pytest.raises(CrsevalError, match="duplicated"):
        import_logs(p)


toml_keys = st.sampled_from(
    [
        "seed",
        "sessions",
        "turns",
        "kb",
        "executor",
        "workers",
        "models",
        "simulator",
        "scoring",
        "judge",
        "bogus",
        "api_key",
    ]
)
toml_values = st.sampled_from(
    [
        "1",
        "-3",
        '"x"',
        "[1, 2]",
        "{}",
        "true",
        '"ray"',
        "1e999",
        "[[1]]",
        '"../../etc"',
        '{ name = "m" }',
        '[{ name = "m", kind = "template" }]',
        "{ shift_every = [3, 1] }",
    ]
)


@SETTINGS
@given(
    pairs=st.lists(st.tuples(toml_keys, toml_values), max_size=5),
    junk=st.text(alphabet=string.printable, max_size=40),
)
def test_configs(tmp_path, pairs, junk):
    p = tmp_path / "c.toml"
    body = "\n".join(f"{k} = {v}" for k, v in dict(pairs).items())
    for text in (body, body + "\n" + junk):
        p.write_text(text)
        try:
            cfg = load_config(p, ShiftConfig)
        except CrsevalError as e:
            assert "c.toml" in str(e)
            if e.field:
                assert e.field.split(".")[0] in {k for k, _ in pairs} | {"models"}
            continue
        assert cfg.models  # only a complete, valid config gets through


def test_config_message_lists_allowed_values(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('executor = "spark"\n[[models]]\nname = "m"\nkind = "template"\n')
    with pytest.raises(CrsevalError) as e:
        load_config(p, ShiftConfig)
    assert "executor" in str(e.value)
    assert "'local'" in str(e.value)
    assert "'ray'" in str(e.value)


@SETTINGS
@given(obj=json_values | _mutations(), suffix=st.sampled_from([".json", ".jsonl"]))
def test_any_file_through_read_dialogues_and_load_catalog(tmp_path, obj, suffix):
    """Whatever layout the detection guesses, a malformed file ends in a CrsevalError, never a traceback."""
    from crseval.data.any_dialogues import read_dialogues
    from crseval.data.catalogs import load_catalog

    p = tmp_path / f"x{suffix}"
    p.write_text(json.dumps(obj))
    try:
        src = read_dialogues(p)
        assert all(isinstance(d.system, str) and d.dialogue.turns for d in src.dialogues)
    except CrsevalError:
        pass
    try:
        cat = load_catalog(p)
        assert all(it.title for it in cat.items)
    except CrsevalError:
        pass
