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


def test_a_folders_content_leaves_out_caches_hidden_files_and_run_directories(tmp_path):
    """Bytecode caches, hidden files and a crseval run directory inside a folder change while runs go
    on; none of them is the folder's content (a resume must not see "changed input data")."""
    (tmp_path / "crs.py").write_text("def crs(): ...\n")
    before = content_hash(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "crs.cpython-311.pyc").write_bytes(b"\x00bytecode")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(b"git")
    run = tmp_path / "runs" / "shift"
    (run / "records").mkdir(parents=True)
    (run / "config.json").write_text("{}")
    (run / "records" / "results.jsonl").write_text('{"key": 1}\n')
    assert content_hash(tmp_path) == before
    (tmp_path / "crs.py").write_text("def crs(): return 1\n")
    assert content_hash(tmp_path) != before


def test_a_run_directory_given_as_input_is_its_records(tmp_path):
    """A run read by another (the card's dialogue measures read its shift sessions) is its records: the
    report, tables and log that every resume rewrites leave the fingerprint alone, a new record does not."""
    run = tmp_path / "shift"
    (run / "records").mkdir(parents=True)
    (run / "config.json").write_text("{}")
    (run / "records" / "sessions.jsonl").write_text('{"session": 1}\n')
    before = content_hash(run)
    (run / "report.html").write_text("<html>rewritten</html>")
    (run / "run.log").write_text("resumed\n")
    assert content_hash(run) == before
    (run / "records" / "sessions.jsonl").write_text('{"session": 1}\n{"session": 2}\n')
    assert content_hash(run) != before
