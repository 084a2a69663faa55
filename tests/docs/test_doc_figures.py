"""The README's and the guides' validated numbers are their records' (tools/doc_figures.py)."""

import pytest

from crseval import validated
from tools.doc_figures import main, mismatches, render, spans, typed, untyped_documents


def test_every_figure_in_the_documents_is_its_records():
    assert spans() >= 30
    assert mismatches() == []


def test_no_figure_is_typed_that_no_record_date_or_source_accounts_for():
    assert [line for path in untyped_documents() for line in typed(path)] == []


def test_a_typed_figure_is_caught_unless_dated_published_or_given(tmp_path, monkeypatch, capsys):
    import tools.doc_figures as doc_figures

    monkeypatch.setattr(doc_figures, "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "guide.md"
    page.write_text(
        "AUC .84 [.82, .86] in 12.4 s, 41 % of turns; a 95 % CI; bars ≤ .80; Qwen2.5 and `x = 0.7`.\n"
        "Python 3.11 and NLTK 3.10 are versions.\n"
        "<!--dated 2026-11-20 abc1234-->.91, 3 min<!--/dated--> <!--given-->.5<!--/given-->\n"
        "<!--published the paper-->κ .563<!--/published--> <!--dated yesterday-->.7<!--/dated-->\n",
        encoding="utf-8",
    )
    found = typed(page)
    assert found[0].startswith("docs/guide.md: a dated passage without its date and commit")
    assert [f.split(": ", 1)[1] for f in found[1:]] == [".84", ".82", ".86", "12.4", "41"]
    assert main(["--typed"]) == 1 and "docs/guide.md:1: 12.4" in capsys.readouterr().out


def test_a_dated_passage_names_a_commit_of_its_day():
    import shutil
    import subprocess

    import tools.doc_figures as doc_figures

    def git(*args: str) -> str:
        run = subprocess.run(["git", *args], cwd=doc_figures.ROOT, capture_output=True, text=True)
        return run.stdout.strip()

    if shutil.which("git") is None or git("rev-parse", "--is-shallow-repository") != "false":
        pytest.skip("not a whole git checkout: the dated passages' commits cannot be looked up")
    stamps = {
        tuple(m[2].split())
        for path in doc_figures.documents()
        for m in doc_figures.PASSAGE.finditer(path.read_text(encoding="utf-8"))
        if m[1] == "dated"
    }
    assert len(stamps) >= 10
    for day, commit in stamps:
        assert git("log", "-1", "--format=%cs", commit) == day, commit


def test_a_dated_passage_says_so_on_the_page():
    from docs.conf import show_dates

    source = ["x\n\n  <!--dated 2026-11-20 abc1234-->\n\ntext .91\n"]
    show_dates(None, "page", source)
    assert "*As measured on 2026-11-20 (commit abc1234), not re-measured since:*" in source[0]
    assert source[0].startswith("x\n\n  *As")


def test_a_span_renders_its_row_as_the_documents_write_numbers(monkeypatch):
    row = {"metric": "m", "label_auc": 0.6354, "label_auc_lo": -0.0512, "vote_agreement": 0.412}
    record = validated.Record(check="x", command="c", key=["metric"], rows=[row])
    monkeypatch.setattr(validated, "load", lambda check: record)
    assert render("x", "metric=m", "{label_auc:.2z} [{label_auc_lo:.2z}]") == ".64 [−.05]"
    assert render("x", "metric=m", "{label_auc_lo:.1f} %") == "−0.1 %"
    assert render("x", "metric=m", "{vote_agreement:.0P} % ({vote_agreement:.0%})") == "41 % (41 %)"


def test_a_document_whose_number_differs_from_its_record_fails_by_name(
    tmp_path, monkeypatch, capsys
):
    import tools.doc_figures as doc_figures

    (tmp_path / "docs").mkdir()
    guide = tmp_path / "docs" / "guide.md"
    guide.write_text(
        "AUC <!--fig simulated_users user=realistic;source=template;member=n-grams · turn "
        '"{discriminator_auc:.2z}"-->.99<!--/fig--> and so on\n',
        encoding="utf-8",
    )
    (tmp_path / "docs" / "figures.toml").write_text(
        '[turn-auc]\nrecord = "simulated_users"\n'
        'row = "user=realistic;source=template;member=n-grams · turn"\n'
        'text = "{discriminator_auc:.2z}"\n',
        encoding="utf-8",
    )
    (tmp_path / "README.template.md").write_text(
        "Turns are told apart at AUC {{ turn-auc }}.\n", encoding="utf-8"
    )
    readme = tmp_path / "README.md"
    readme.write_text("Turns are told apart at AUC .99.\n", encoding="utf-8")
    monkeypatch.setattr(doc_figures, "ROOT", tmp_path)
    out = (main([]), capsys.readouterr().out)
    assert out[0] == 1 and "docs/guide.md: '.99' ≠" in out[1]
    assert "README.md: not the rendering of README.template.md" in out[1]
    assert main(["--write"]) == 0 and mismatches() == []
    assert ".99" not in guide.read_text(encoding="utf-8")
    text = readme.read_text(encoding="utf-8")
    assert text.startswith(doc_figures.WRITTEN) and "{{" not in text and ".99" not in text


def test_a_name_the_figures_file_does_not_define_is_one_line(tmp_path, monkeypatch):
    import tools.doc_figures as doc_figures

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "figures.toml").write_text("", encoding="utf-8")
    (tmp_path / "README.template.md").write_text("{{ nowhere }}\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("", encoding="utf-8")
    monkeypatch.setattr(doc_figures, "ROOT", tmp_path)
    assert mismatches() == ["README.template.md: '{{ nowhere }}: not defined in docs/figures.toml'"]


def test_a_benchmark_record_renders_its_rows_and_text_stays_as_printed(tmp_path, monkeypatch):
    import json

    import tools.doc_figures as doc_figures

    results = tmp_path / "bench" / "results"
    results.mkdir(parents=True)
    record = {
        "date": "2026-11-29 03:59 UTC",
        "tables": [{"rows": [{"command": "crseval demo", "now s": 134.4, "cell": "-.48 · 62%"}]}],
    }
    (results / "default_commands.json").write_text(json.dumps(record), encoding="utf-8")
    monkeypatch.setattr(doc_figures, "ROOT", tmp_path)
    template = "{now_s:.0M} on {date:.10} (table {table}) ¦ {cell}"
    assert (
        render("bench/default_commands", "command=crseval demo", template)
        == "2 min 14 s on 2026-11-29 (table 0) | -.48 · 62%"
    )
