"""One way to save a figure: PNG for the report, and the vector formats ``CRSEVAL_FIGURES`` names (or none)."""

from __future__ import annotations

import pytest

from crseval.core.errors import ConfigError
from crseval.data.bundled import sample_dir
from crseval.plotting import bar_with_ci, figure_formats, plt


def _bars(path):
    return bar_with_ci(
        ["a", "b"], [0.2, 0.6], [0.1, 0.4], [0.3, 0.8], ylabel="y", title="t", path=path
    )


def test_png_and_pdf_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv("CRSEVAL_FIGURES", raising=False)
    _bars(tmp_path / "f.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pdf", "f.png"]
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert not plt.get_fignums()  # closed


def test_the_vector_copies_follow_crseval_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_FIGURES", "png")
    _bars(tmp_path / "f.png")
    assert [p.name for p in tmp_path.iterdir()] == ["f.png"]
    monkeypatch.setenv("CRSEVAL_FIGURES", " SVG, pdf")
    assert figure_formats() == ["png", "pdf", "svg"]  # PNG always: the report embeds it


def test_none_writes_no_figure_and_cannot_be_combined(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_FIGURES", "none")
    assert _bars(tmp_path / "f.png") == tmp_path / "f.png"
    assert not list(tmp_path.iterdir()) and not plt.get_fignums()
    monkeypatch.setenv("CRSEVAL_FIGURES", "none,pdf")
    with pytest.raises(ConfigError, match="none"):
        figure_formats()


def test_an_unknown_format_is_one_clear_error_and_leaves_no_figure_open(tmp_path, monkeypatch):
    monkeypatch.setenv("CRSEVAL_FIGURES", "png,jpeg")
    with pytest.raises(ConfigError, match="jpeg"):
        _bars(tmp_path / "f.png")
    assert not plt.get_fignums()


def test_a_run_refuses_a_bad_crseval_figures_before_any_work(tmp_path, monkeypatch):
    import crseval

    monkeypatch.setenv("CRSEVAL_FIGURES", "gif")
    with pytest.raises(ConfigError, match="gif"):
        crseval.evaluate("arena", votes=[str(sample_dir() / "votes.csv")], out=tmp_path / "run")
    assert not (tmp_path / "run").exists()
