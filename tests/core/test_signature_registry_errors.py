import pytest

from crseval.core.errors import CrsevalError
from crseval.core.registry import METRICS, get_metric, register_metric
from crseval.core.signature import content_hash, format_signature, make_signature


def test_error_message_names_file_line_field_expected_and_fix():
    e = CrsevalError("bad value", file="a.csv", line=3, field="score", expected="a number", fix="edit it")
    assert str(e) == "a.csv:3: field 'score': bad value (expected a number) — edit it"


def test_signature_is_one_line_and_refuses_secrets():
    sig = make_signature(data="x@1", llm={"backend": "openai", "model": "m", "T": 0})
    line = format_signature(sig)
    assert line.startswith("crseval:") and "llm.backend:openai" in line and "data:x@1" in line
    with pytest.raises(ValueError, match="secrets"):
        make_signature(llm={"api_key": "sk-123"})


def test_content_hash_depends_on_content(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one")
    b.write_text("one")
    assert content_hash(a) == content_hash(b)
    b.write_text("two")
    assert content_hash(a) != content_hash(b)


def test_registry_finds_metrics_by_name():
    @register_metric("test.double", "twice the input", higher_is_better=False, factor=2)
    def double(x, factor=2):
        return x * factor

    spec = get_metric("test.double")
    assert spec.fn(3) == 6 and not spec.higher_is_better
    assert spec.signature() == "test.double(factor=2)"
    with pytest.raises(CrsevalError, match="unknown metric"):
        get_metric("nope")
    METRICS.pop("test.double")
