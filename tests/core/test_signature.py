import pytest

from crseval.core.signature import content_hash, format_signature, make_signature


def test_signature_is_one_line_with_the_standard_keys():
    sig = make_signature(
        data="x@1", llm={"backend": "openai", "model": "m", "T": 0}, metric={"k": 4}, seed=3
    )
    line = format_signature(sig)
    assert line.startswith("crseval:")
    assert "llm.backend:openai" in line
    assert "data:x@1" in line
    assert list(sig)[2:] == ["data", "llm", "metric", "seed"]


def test_empty_parts_are_left_out():
    assert "llm" not in make_signature(data="x@1", llm={}, model=None)


def test_secrets_never_enter_a_signature():
    with pytest.raises(ValueError, match="secrets"):
        make_signature(data="x@1", llm={"api_key": "sk-123"})


def test_content_hash_depends_on_content(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one")
    b.write_text("one")
    assert content_hash(a) == content_hash(b)
    b.write_text("two")
    assert content_hash(a) != content_hash(b)
