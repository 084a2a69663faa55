"""``report.html``: one self-contained file (CSS inline, figures as base64 PNG, no scripts, no
network requests) built from a run directory. Every string from data — dialogue text, ids, config
values — goes through ``html.escape``, so hostile text renders as text.

Jobs describe their part of the report in the :class:`~crseval.core.output.Output` they return (``section``:
title, text, tables and figures with captions, a drill-down), which the runner records in
``report_sections.json``; tables and figures no section names are listed at the end.
The report is written for a paper: numbered, captioned figures and tables; column headers are the
registry's labels (the raw names in a tooltip) and a glossary at the end describes every column shown;
a table's headline columns come first (the rest one click away) and a one-row table is shown as
label/value pairs.
"""

from __future__ import annotations

import base64
import html
import json
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.glossary import describe
from crseval.core.registry import get_table, shown_columns
from crseval.runs.view import Run, current_names, entries, renames

MAX_ROWS = 60
MAX_COLUMNS = 9  # more than this and a table without declared headline columns is split
MAX_GROUPS = 40

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222;
padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:2px solid #0072B2;padding-bottom:.2rem;
margin-top:2rem}code,.sig{font-family:ui-monospace,Menlo,monospace;font-size:.85rem}
.sig{background:#f4f6f8;padding:.6rem;border-radius:4px;word-break:break-all}
table{border-collapse:collapse;margin:.4rem 0;font-size:.85rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;
text-align:left;vertical-align:top}th{background:#eef2f6}tr:nth-child(even) td{background:#fafbfc}
.scroll{overflow-x:auto;max-width:100%}td.num{text-align:right;font-variant-numeric:tabular-nums}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}figure{margin:1rem 0}
img{max-width:min(100%,760px);border:1px solid #eee}figcaption,.caption{font-size:.9rem;color:#444}
.warn{color:#b35900}.muted{color:#666}tr.hl td{background:#fff4d6!important}details details{margin-left:1.2rem}
dl.glossary dt{font-weight:600;margin-top:.4rem}dl.glossary dd{margin-left:1.2rem}
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


class _Doc:
    """Numbering of figures and tables, and every column shown (for the glossary)."""

    def __init__(self) -> None:
        self.figures = self.tables = 0
        self.columns: dict[tuple[str, str, str], None] = {}  # (column, label, description)

    def head(self, column: object, table: str | None) -> str:
        """A column head: the label its table's declaration gives, the name as a tooltip."""
        label, text = describe(str(column), table)
        self.columns[(str(column), label, text)] = None
        return f"<th title='{esc(column)}'>{esc(label)}</th>"


RELATIVE_LINK = re.compile(r"\[([^\[\]]+)\]\(([\w.-]+(?:/[\w.-]+)*)\)")


INLINE = (
    (RELATIVE_LINK, r"<a href='\2'>\1</a>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
)


def _paragraph(text: str) -> str:
    """A section paragraph, escaped, with the Markdown a section's text uses: links to relative paths (a
    part's own report; no scheme can pass the pattern, so the text cannot link anywhere else), **bold**
    and `code`."""
    out = esc(text)
    for pattern, repl in INLINE:
        out = pattern.sub(repl, out)
    return f"<p>{out}</p>"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f'<td class="num">{esc(f"{v:.4g}") if v == v else ""}</td>'
    if isinstance(v, int) and not isinstance(v, bool):
        return f'<td class="num">{v}</td>'
    return f"<td>{esc('' if v is None or (isinstance(v, float) and v != v) else v)}</td>"


def html_table(
    df: pd.DataFrame,
    max_rows: int = MAX_ROWS,
    highlight: str | None = None,
    doc: _Doc | None = None,
    table: str | None = None,
) -> str:
    shown = df.head(max_rows)
    doc = doc or _Doc()
    head = "".join(doc.head(c, table) for c in shown.columns)
    rows = []
    for rec in shown.itertuples(index=False):
        marked = highlight is not None and str(getattr(rec, highlight, "") or "").strip() not in (
            "",
            "nan",
        )
        rows.append(
            ("<tr class='hl'>" if marked else "<tr>") + "".join(_cell(v) for v in rec) + "</tr>"
        )
    more = (
        f'<p class="muted">{len(df) - max_rows} more rows in the CSV file.</p>'
        if len(df) > max_rows
        else ""
    )
    return (
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"{more}"
    )


def _pairs(df: pd.DataFrame, doc: _Doc, table: str) -> str:
    """A one-row table as label / value pairs (a wide row does not fit a page)."""
    rows = "".join(
        f"<tr>{doc.head(c, table)}{_cell(v)}</tr>" for c, v in zip(df.columns, df.iloc[0])
    )
    return f"<table><tbody>{rows}</tbody></table>"


def _split(name: str, df: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(headline columns, the rest): declared in the registry, else the first ones."""
    spec = get_table(name)
    if spec is not None and spec.headline:
        first = shown_columns(name, df.columns)
    else:
        first = list(df.columns[:MAX_COLUMNS])
    return first, [c for c in df.columns if c not in first]


def _read(path: Path) -> pd.DataFrame | str:
    """A table as text, under today's column names (a run of an older crseval reads as a new one)."""
    try:
        return current_names(path.stem, pd.read_csv(path, keep_default_na=False, na_values=[""]))
    except pd.errors.EmptyDataError:
        return "is empty"
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        return f"could not be read ({type(e).__name__})"


def _table_block(store: Run, name: str, caption: str | None, open_: bool, doc: _Doc) -> str:
    path = store.path("tables", f"{name}.csv")
    if not path.exists():
        return f'<p class="warn">table {esc(name)} is missing</p>'
    df = _read(path)
    if isinstance(df, str):
        return f'<p class="warn">table {esc(name)} {esc(df)}: {esc(path.name)}</p>'
    doc.tables += 1
    spec = get_table(name)
    caption = caption or _sentence(spec.description if spec else name.replace("_", " "))
    summary = f"Table {doc.tables}. {esc(caption)} <span class='muted'>({len(df)} rows; {esc(name)}.csv)</span>"
    if len(df) == 1 and len(df.columns) > 4:
        body = _pairs(df, doc, name)
    else:
        first, rest = _split(name, df)
        body = html_table(df[first], doc=doc, table=name)
        if rest:
            body += f"<details><summary>all {len(df.columns)} columns</summary>{html_table(df, doc=doc, table=name)}</details>"
    return f"<details{' open' if open_ else ''}><summary>{summary}</summary>{body}</details>"


def _figure(path: Path, caption: str | None, doc: _Doc) -> str:
    doc.figures += 1
    data = base64.b64encode(path.read_bytes()).decode()
    text = caption or _sentence(path.stem.replace("_", " "))
    files = ", ".join(
        [f"figures/{path.name}"]
        + [f".{s}" for s in ("pdf", "svg") if path.with_suffix(f".{s}").exists()]
    )
    return (
        f'<figure><img alt="{esc(text)}" src="data:image/png;base64,{data}"><figcaption>Figure {doc.figures}. '
        f'{esc(text)} <span class="muted">({esc(files)})</span></figcaption></figure>'
    )


def _drill_rows(pq: Path, keep: np.ndarray) -> pd.DataFrame:
    """The rows of ``pq`` where ``keep`` is true, read one row group at a time (a 100,000-turn table written in
    parts is never held whole)."""
    import pyarrow as pa
    import pyarrow.parquet as papq

    f, parts, start = papq.ParquetFile(pq), [], 0
    for g in range(f.num_row_groups):
        n = f.metadata.row_group(g).num_rows
        if keep[start : start + n].any():
            parts.append(f.read_row_group(g).filter(pa.array(keep[start : start + n])))
        start += n
    return pa.concat_tables(parts).to_pandas() if parts else pd.DataFrame()


def _light(path: Path, columns: list, now: dict[str, str]) -> pd.DataFrame:
    """A drill table's level, value and highlight columns (from its Parquet copy where there is one, the
    whole CSV otherwise; ``now``: an older run's names → today's): full rows are read only for the groups
    shown."""
    pq = path.with_suffix(".parquet")
    if not pq.exists():
        return current_names(path.stem, pd.read_csv(path, keep_default_na=False, na_values=[""]))
    import pyarrow.parquet as papq

    names = papq.read_schema(pq).names
    was = {v: k for k, v in now.items()}
    held = [was.get(c, c) for c in dict.fromkeys(columns) if c]
    return pd.read_parquet(pq, columns=[c for c in held if c in names]).rename(columns=now)


def _held_columns(path: Path) -> list[str]:
    """The column names a table's file holds (its Parquet schema, or its CSV's header)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as papq

        return list(papq.read_schema(path).names)
    return list(pd.read_csv(path, nrows=0).columns)


def _drill_block(store: Run, drill: dict, doc: _Doc) -> str:
    """Nested <details> per level (e.g. model → session), labelled with the mean of ``value``."""
    path = store.path("tables", f"{drill['table']}.csv")
    if not path.exists():
        return f'<p class="warn">table {esc(drill["table"])} is missing</p>'
    pq = path.with_suffix(".parquet")  # the same table, read ~10× faster (100k turns)
    held = _held_columns(pq if pq.exists() else path)
    now = renames(drill["table"], held)  # an older run's names → today's
    levels = [now.get(lv, lv) for lv in drill["levels"]]
    value, hl = now.get(drill.get("value"), drill.get("value")), drill.get("highlight")
    light = _light(path, [*levels, value, hl], now).astype({lv: str for lv in levels})

    def label(d: pd.DataFrame) -> str:
        if not value or value not in d:
            return f"{len(d)} rows"
        v = pd.to_numeric(d.groupby(levels, sort=False)[value].first(), errors="coerce")
        return f"{esc(value)} {v.mean():.3f}" if v.notna().any() else "no value"

    def shown(d: pd.DataFrame, depth: int) -> list[tuple]:
        if depth == len(levels):
            return [tuple(d[levels].iloc[0])]
        return [
            k
            for _, sub in list(d.groupby(levels[depth], sort=False))[:MAX_GROUPS]
            for k in shown(sub, depth + 1)
        ]

    keep = pd.MultiIndex.from_frame(light[levels]).isin(shown(light, 0))
    full = _drill_rows(pq, np.asarray(keep)).rename(columns=now) if pq.exists() else light
    full = full.astype({lv: str for lv in levels}) if len(full) else full
    shown_cols = [c for c in full.columns if c not in levels and c != value]

    def block(d: pd.DataFrame, depth: int, where: pd.DataFrame) -> str:
        if depth == len(levels):
            return html_table(
                where[shown_cols],
                max_rows=200,
                highlight=hl if hl in where else None,
                doc=doc,
                table=drill["table"],
            )
        out, groups = [], list(d.groupby(levels[depth], sort=False))
        for key, sub in groups[:MAX_GROUPS]:
            marks = (
                int((sub[hl].fillna("").astype(str).str.strip() != "").sum()) if hl in sub else 0
            )
            extra = f", {marks} highlighted" if marks else ""
            out.append(
                f"<details><summary>{esc(levels[depth])} {esc(key)} — {label(sub)} ({len(sub)} rows{extra})"
                f"</summary>{block(sub, depth + 1, where[where[levels[depth]] == key])}</details>"
            )
        if len(groups) > MAX_GROUPS:
            out.append(f'<p class="muted">{len(groups) - MAX_GROUPS} more in {esc(path.name)}.</p>')
        return "".join(out)

    return f"<h3>Drill-down: {esc(drill['table'])}</h3>" + block(light, 0, full)


def _glossary(doc: _Doc) -> str:
    rows = list(doc.columns)
    items = "".join(
        f"<dt>{esc(label)} <code>{esc(c)}</code></dt><dd>{esc(text or 'as named')}</dd>"
        for c, label, text in sorted(rows, key=lambda r: r[1].lower())
    )
    return f"<h2>Glossary</h2><p class='muted'>Every column shown above.</p><dl class='glossary'>{items}</dl>"


def _head(store: Run, title: str) -> list[str]:
    parts = [
        f"<h1>{esc(title)}</h1><p class='muted'>run directory <code>{esc(store.path().name)}</code>, "
        f"report written {esc(time.strftime('%Y-%m-%d %H:%M:%S'))}</p>"
    ]
    sig_path = store.path("signature.json")
    if sig_path.exists():
        sig = store.read_json("signature.json")
        if not isinstance(sig, dict):
            raise CrsevalError(
                "signature is not a JSON object",
                file=sig_path,
                fix="rerun the command that wrote it",
            )
        parts.append(f"<h2>Signature</h2><div class='sig'>{esc(sig.get('line', ''))}</div>")
    log = store.path("run.log")
    warnings = (
        [
            ln
            for ln in log.read_text(encoding="utf-8", errors="replace").splitlines()
            if "WARNING" in ln
        ]
        if log.exists()
        else []
    )
    if warnings:
        parts.append(
            "<h2>Warnings</h2><ul>"
            + "".join(f"<li class='warn'>{esc(w)}</li>" for w in warnings)
            + "</ul>"
        )
    return parts


def _sections(store: Run, doc: _Doc) -> tuple[list[str], set[str], set[str]]:
    parts, used_tables, used_figures = [], set(), set()
    for sec in store.sections():
        parts.append(f"<h2>{esc(sec['title'])}</h2>")
        if sec.get("text"):
            parts.append("".join(map(_paragraph, str(sec["text"]).split("\n\n"))))
        for name, caption in entries(sec, "figures"):
            used_figures.add(name)
            p = store.path("figures", f"{name}.png")
            if p.exists():
                parts.append(_figure(p, caption, doc))
        for i, (name, caption) in enumerate(entries(sec, "tables")):
            used_tables.add(name)
            parts.append(_table_block(store, name, caption, open_=i == 0, doc=doc))
        if sec.get("drill"):
            used_tables.add(sec["drill"]["table"])
            parts.append(_drill_block(store, sec["drill"], doc))
    return parts, used_tables, used_figures


def write_report(run_dir: str | Path, title: str | None = None) -> Path:
    """Write ``report.html``; the title is remembered, so rewriting the report later keeps it."""
    store = Run(run_dir)
    meta_path = store.path("report_meta.json")
    meta = store.read_json(meta_path.name) if meta_path.exists() else {}
    title = title or (meta.get("title") if isinstance(meta, dict) else None) or "crseval report"
    meta_path.write_text(
        json.dumps({"title": title}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    doc = _Doc()
    parts = _head(store, title)
    body, used_tables, used_figures = _sections(store, doc)
    parts += body
    rest_t = sorted(p.stem for p in store.path("tables").glob("*.csv") if p.stem not in used_tables)
    rest_f = sorted(p for p in store.path("figures").glob("*.png") if p.stem not in used_figures)
    if rest_t or rest_f:
        parts.append("<h2>Other tables and figures</h2>")
        parts += [_figure(p, None, doc) for p in rest_f] + [
            _table_block(store, t, None, False, doc) for t in rest_t
        ]
    if doc.columns:
        parts.append(_glossary(doc))
    cfg = store.path("config.json")
    if cfg.exists():
        parts.append(
            f"<h2>Configuration</h2><details><summary>config.json</summary><pre>"
            f"{esc(cfg.read_text(encoding='utf-8', errors='replace'))}</pre></details>"
        )
    html_doc = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src data:; "
        f"style-src 'unsafe-inline'\"><title>{esc(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(parts)
        + "</body></html>"
    )
    out = store.path("report.html")
    out.write_text(html_doc, encoding="utf-8")
    return out
