import re

import pandas as pd
import pytest

from crseval.report.html import write_report
from crseval.runs import RunStore

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check

HOSTILE = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>'


def test_report_escapes_data_and_is_self_contained(tmp_path):
    s = RunStore(tmp_path / "run")
    s.write_table(
        "dialogue_turns", pd.DataFrame({"text": [HOSTILE, "fine & dandy"], "score": [1.5, 2.0]})
    )
    s.add_section("Section " + HOSTILE, "text " + HOSTILE, tables=["dialogue_turns"])
    s.save_signature({"crseval": "0", "data": HOSTILE})
    html = write_report(s.root).read_text()
    assert "<script" not in html
    assert "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")
    assert "&lt;script&gt;" in html
    assert "fine &amp; dandy" in html
    assert not re.search(r"""(src|href)=["']?https?://""", html)  # no network requests
    assert "Content-Security-Policy" in html


def test_long_tables_are_paged(tmp_path):
    s = RunStore(tmp_path / "run")
    s.write_table("big", pd.DataFrame({"i": range(500)}))
    html = write_report(s.root).read_text()
    assert "440 more rows" in html
    assert html.count("<tr>") < 100


def test_a_section_links_to_its_parts_reports_and_nowhere_else(tmp_path):
    """`[shift](shift/report.html)` in a section's text is a link (the card and the demo point at each
    part's own report); a scheme, an absolute URL or markup in the label stays text."""
    store = RunStore(tmp_path)
    store.add_section(
        "Parts",
        "See [shift](shift/report.html) and [behavior/llm](behavior/llm/report.html). "
        "[x](javascript:alert(1)) [y](https://example.org) [<b>z</b>](a.html) **held** `crseval demo`",
    )
    html = write_report(tmp_path).read_text()
    assert "<a href='shift/report.html'>shift</a>" in html
    assert "<a href='behavior/llm/report.html'>behavior/llm</a>" in html
    assert "javascript:" not in re.findall(r"href='([^']*)'", html)
    assert not any(
        h.startswith(("http", "javascript")) for h in re.findall(r"href='([^']*)'", html)
    )
    text = html.split("<h2>Parts</h2>")[1].split("</p>")[0]
    assert "<b>" not in text
    assert "<strong>held</strong>" in text and "<code>crseval demo</code>" in text


def test_a_figures_caption_names_the_files_its_run_wrote(tmp_path, monkeypatch):
    from crseval.plotting import bar_with_ci

    s = RunStore(tmp_path / "run")
    for name, formats in (("both", "png,pdf"), ("png_only", "png"), ("not_written", "none")):
        monkeypatch.setenv("CRSEVAL_FIGURES", formats)
        bar_with_ci(["a"], [1.0], ylabel="y", title="t", path=s.figure_path(name))
    s.add_section("Figures", "", figures=["both", "png_only", "not_written"])
    html = write_report(s.root).read_text()
    assert "(figures/both.png, .pdf)" in html and "(figures/png_only.png)" in html
    assert (
        html.count("<figure>") == 2 and "not_written" not in html
    )  # none: no figure, no broken image
