"""``report.html``: one self-contained file (CSS inline, figures as base64 PNG, no scripts, no
network requests) built from a run directory. Every string from data — dialogue text, ids, config
values — goes through ``html.escape``, so hostile text renders as text.

Capabilities describe their part of the report with :meth:`RunStore.add_section` (title, text,
tables, figures); tables and figures no section names are listed at the end.
"""
from __future__ import annotations

import base64
import html
import time
from pathlib import Path

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.runs.store import RunStore

MAX_ROWS = 60

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#222;
padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:2px solid #0072B2;padding-bottom:.2rem;
margin-top:2rem}code,.sig{font-family:ui-monospace,Menlo,monospace;font-size:.85rem}
.sig{background:#f4f6f8;padding:.6rem;border-radius:4px;word-break:break-all}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;
text-align:left;vertical-align:top}th{background:#eef2f6}tr:nth-child(even) td{background:#fafbfc}
.scroll{overflow-x:auto;max-width:100%}td.num{text-align:right;font-variant-numeric:tabular-nums}details{margin:.5rem 0}summary{cursor:pointer;
font-weight:600}img{max-width:100%;border:1px solid #eee;margin:.5rem 0}.warn{color:#b35900}.muted{color:#666}
tr.hl td{background:#fff4d6!important}details details{margin-left:1.2rem}
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def html_table(df: pd.DataFrame, max_rows: int = MAX_ROWS, highlight: str | None = None) -> str:
    shown = df.head(max_rows)
    head = "".join(f"<th>{esc(c)}</th>" for c in shown.columns)
    rows = []
    for rec in shown.itertuples(index=False):
        cells = []
        for v in rec:
            if isinstance(v, float):
                cells.append(f'<td class="num">{esc(f"{v:.4g}") if v == v else ""}</td>')
            elif isinstance(v, int) and not isinstance(v, bool):
                cells.append(f'<td class="num">{v}</td>')
            else:
                cells.append(f"<td>{esc('' if v is None or (isinstance(v, float) and v != v) else v)}</td>")
        marked = highlight is not None and str(getattr(rec, highlight, "") or "").strip() not in ("", "nan")
        rows.append(("<tr class='hl'>" if marked else "<tr>") + "".join(cells) + "</tr>")
    more = (f'<p class="muted">{len(df) - max_rows} more rows in the CSV file.</p>' if len(df) > max_rows else "")
    return (f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            f"{more}")


def _figure(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<figure><img alt="{esc(path.stem)}" src="data:image/png;base64,{data}"><figcaption class="muted">' \
           f'{esc(path.name)}</figcaption></figure>'


def _table_block(store: RunStore, name: str, open_: bool) -> str:
    path = store.path("tables", f"{name}.csv")
    if not path.exists():
        return f'<p class="warn">table {esc(name)} is missing</p>'
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        return f'<p class="muted">table {esc(name)} is empty</p>'
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        return f'<p class="warn">table {esc(name)} could not be read ({esc(type(e).__name__)}): {esc(path.name)}</p>'
    return (f"<details{' open' if open_ else ''}><summary>{esc(name)} ({len(df)} rows)</summary>"
            f"{html_table(df)}</details>")


MAX_GROUPS = 40


def _drill_block(store: RunStore, drill: dict) -> str:
    """Nested <details> per level (e.g. model → session), labelled with the mean of ``value``."""
    path = store.path("tables", f"{drill['table']}.csv")
    if not path.exists():
        return f'<p class="warn">table {esc(drill["table"])} is missing</p>'
    pq = path.with_suffix(".parquet")  # the same table, read ~10× faster (drill tables can hold 100k turns)
    df = pd.read_parquet(pq) if pq.exists() else pd.read_csv(path, keep_default_na=False, na_values=[""])
    df = df.astype({lv: str for lv in drill["levels"]})
    levels, value, hl = list(drill["levels"]), drill.get("value"), drill.get("highlight")
    shown_cols = [c for c in df.columns if c not in levels and c != value]

    def label(d: pd.DataFrame) -> str:
        if not value or value not in d:
            return f"{len(d)} rows"
        v = pd.to_numeric(d.groupby(levels, sort=False)[value].first(), errors="coerce")
        return f"{esc(value)} {v.mean():.3f}" if v.notna().any() else "no value"

    def block(d: pd.DataFrame, depth: int) -> str:
        if depth == len(levels):
            return html_table(d[shown_cols], max_rows=200, highlight=hl if hl in d else None)
        out, groups = [], list(d.groupby(levels[depth], sort=False))
        for key, sub in groups[:MAX_GROUPS]:
            marks = int((sub[hl].fillna("").astype(str).str.strip() != "").sum()) if hl in sub else 0
            extra = f", {marks} highlighted" if marks else ""
            out.append(f"<details><summary>{esc(levels[depth])} {esc(key)} — {label(sub)} ({len(sub)} rows{extra})"
                       f"</summary>{block(sub, depth + 1)}</details>")
        if len(groups) > MAX_GROUPS:
            out.append(f'<p class="muted">{len(groups) - MAX_GROUPS} more in {esc(path.name)}.</p>')
        return "".join(out)

    return f"<h3>Drill-down: {esc(drill['table'])}</h3>" + block(df, 0)


def write_report(run_dir: str | Path, title: str | None = None) -> Path:
    """Write ``report.html``; the title is remembered, so rewriting the report later keeps it."""
    store = RunStore(run_dir)
    meta = store.read_json("report_meta.json") if store.path("report_meta.json").exists() else {}
    title = title or (meta.get("title") if isinstance(meta, dict) else None) or "crseval report"
    store.write_json("report_meta.json", {"title": title})
    parts = [f"<h1>{esc(title)}</h1><p class='muted'>run directory <code>{esc(store.root.name)}</code>, "
             f"report written {esc(time.strftime('%Y-%m-%d %H:%M:%S'))}</p>"]
    sig_path = store.path("signature.json")
    if sig_path.exists():
        sig = store.read_json("signature.json")
        if not isinstance(sig, dict):
            raise CrsevalError("signature is not a JSON object", file=sig_path, fix="rerun the command that wrote it")
        parts.append(f"<h2>Signature</h2><div class='sig'>{esc(sig.get('line', ''))}</div>")
    log = store.path("run.log")
    warnings = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if "WARNING" in ln] \
        if log.exists() else []
    if warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{esc(w)}</li>" for w in warnings) + "</ul>")
    used_tables, used_figures = set(), set()
    for sec in store.sections():
        parts.append(f"<h2>{esc(sec['title'])}</h2>")
        if sec.get("text"):
            parts.append("".join(f"<p>{esc(p)}</p>" for p in str(sec["text"]).split("\n\n")))
        for fig in sec.get("figures", []):
            used_figures.add(fig)
            p = store.figure_path(fig)
            if p.exists():
                parts.append(_figure(p))
        for i, t in enumerate(sec.get("tables", [])):
            used_tables.add(t)
            parts.append(_table_block(store, t, open_=i == 0))
        if sec.get("drill"):
            used_tables.add(sec["drill"]["table"])
            parts.append(_drill_block(store, sec["drill"]))
    rest_t = sorted(p.stem for p in store.path("tables").glob("*.csv") if p.stem not in used_tables)
    rest_f = sorted(p for p in store.path("figures").glob("*.png") if p.stem not in used_figures)
    if rest_t or rest_f:
        parts.append("<h2>Other tables and figures</h2>")
        parts += [_figure(p) for p in rest_f] + [_table_block(store, t, open_=False) for t in rest_t]
    cfg = store.path("config.json")
    if cfg.exists():
        parts.append(f"<h2>Configuration</h2><details><summary>config.json</summary><pre>"
                     f"{esc(cfg.read_text(encoding='utf-8', errors='replace'))}</pre></details>")
    doc = (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
           f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src data:; "
           f"style-src 'unsafe-inline'\"><title>{esc(title)}</title><style>{CSS}</style></head><body>"
           + "\n".join(parts) + "</body></html>")
    out = store.path("report.html")
    out.write_text(doc, encoding="utf-8")
    return out
