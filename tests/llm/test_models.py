"""Joining a GGUF from package parts: verified by checksum, cached once, never half-written."""

import hashlib
import sys

import pytest

from crseval.core.errors import CrsevalError
from crseval.llm import models


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 70]
    for i, c in enumerate(chunks, 1):
        d = tmp_path / "pkgs" / f"fakepart{i}" / "data"
        d.mkdir(parents=True)
        (d.parent / "__init__.py").write_text("")
        (d / f"part{i:02d}.bin").write_bytes(c)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path / "home"))
    blob = b"".join(chunks)
    entry = models.EmbeddedModel(
        "fake",
        "fake",
        ("fakepart1", "fakepart2", "fakepart3"),
        hashlib.sha256(blob).hexdigest(),
        len(blob),
    )
    monkeypatch.setitem(models.EMBEDDED, "fake", entry)
    yield blob, entry
    for i in range(1, 4):
        sys.modules.pop(f"fakepart{i}", None)


def test_parts_are_joined_in_order_and_cached(fake_parts, tmp_path):
    blob, _ = fake_parts
    path, entry = models.resolve_model("fake")
    assert path.read_bytes() == blob
    assert entry.name == "fake"
    mtime = path.stat().st_mtime_ns
    assert (
        models.resolve_model("fake")[0].stat().st_mtime_ns == mtime
    )  # second call reuses the joined file


def test_checksum_mismatch_leaves_nothing_behind(fake_parts, monkeypatch, tmp_path):
    _, entry = fake_parts
    monkeypatch.setitem(
        models.EMBEDDED,
        "fake",
        models.EmbeddedModel("fake", "x", entry.packages, "0" * 64, entry.size),
    )
    with pytest.raises(CrsevalError, match="sha256"):
        models.resolve_model("fake")
    assert not list((tmp_path / "home" / "models").glob("fake*"))


def test_missing_package_and_unknown_model_have_fixes(tmp_path):
    with pytest.raises(CrsevalError, match="neither an embedded model nor a file"):
        models.resolve_model(str(tmp_path / "nope.gguf"))
    entry = models.EmbeddedModel("ghost", "x", ("no_such_package_xyz", "no_such_package_abc"))
    models.EMBEDDED["ghost"] = entry
    try:
        with pytest.raises(CrsevalError, match="not installed"):
            models.resolve_model("ghost")
    finally:
        models.EMBEDDED.pop("ghost")
