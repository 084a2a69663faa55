"""A run is a directory: config, signature, append-only JSONL records, LLM cache, tables, figures, report.

Records are written one JSON line at a time and flushed, so a killed process loses at most the line
it was writing. On reopening, a torn trailing line (no newline, or not valid JSON) is *reported*
(``store.repairs``, a warning in ``run.log``) and cut off; every complete record is kept exactly once,
keyed by its ``key`` field, so a resumed job skips what is done. A corrupt line that is not the last
one is not a crash artefact and raises a CrsevalError naming the line.

Everything the store writes stays inside the run directory: names are checked before use. Folders are
created on the first write, so opening a store (or validating a job's input) leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.glossary import undeclared
from crseval.core.signature import format_signature
from crseval.runs.formats import latex_table, markdown_table
from crseval.runs.provenance import identity
from crseval.runs.revisions import revisions
from crseval.runs.stream import Stream
from crseval.runs.view import checked_sections, read_json
from crseval.runs.writer_lock import hold_new, release, remove_unwritten

LAYOUT = {"records": "records", "tables": "tables", "figures": "figures"}


def _changed(old: Any, new: Any) -> str:
    """``: models.0.target (my_crs.py@1a2b… → my_crs.py@3c4d…)`` — the first fields that differ, so a refusal
    to resume names what changed."""

    def leaves(v: Any, at: str) -> dict[str, Any]:
        if isinstance(v, dict):
            return {k: x for key, item in v.items() for k, x in leaves(item, f"{at}.{key}").items()}
        if isinstance(v, list):
            return {k: x for i, item in enumerate(v) for k, x in leaves(item, f"{at}.{i}").items()}
        return {at.lstrip("."): v}

    a, b = leaves(old, ""), leaves(new, "")
    diff = [k for k in dict.fromkeys([*a, *b]) if a.get(k, "—") != b.get(k, "—")]
    shown = [f"{k or 'value'} ({a.get(k, '—')} → {b.get(k, '—')})" for k in diff[:3]]
    more = f"; {len(diff) - 3} more" if len(diff) > 3 else ""
    return ": " + "; ".join(shown) + more if diff else ""


def _difference(old: dict[str, Any], record: dict[str, Any]) -> str | None:
    """What makes ``record`` (a run's provenance) another run than the one whose config.json is ``old``:
    ``"a different configuration: …"``; None when it is the same run."""
    for part, what in (("job", "job"), ("config", "configuration"), ("data", "input data")):
        new = json.loads(json.dumps(record[part], default=str))
        if old.get(part) != new:
            return f"a different {what}" + _changed(old.get(part), new)
    return None


def free_directory(base: Path, record: dict[str, Any], revise: bool = False) -> Path:
    """Where a run of ``record`` goes when no folder is named: the one of ``base``, ``base-2``, ``base-3``, …
    that holds this run (so the same command resumes it; with ``revise``, one whose CRS's code was
    since fixed), else the first that holds no run. A default folder holding another configuration is
    never a dead end."""
    base = Path(base)
    taken = 1 + len(list(base.parent.glob(f"{base.name}-*")))
    candidates = [base] + [base.with_name(f"{base.name}-{n}") for n in range(2, taken + 2)]
    for same in (True, False) if revise else (True,):
        for p in candidates:
            if _holds(p, record, same):
                return p
    # one more candidate than folders named so: one of them is free
    return next(p for p in candidates if not p.is_file() and not (p / "config.json").exists())


def _holds(folder: Path, record: dict[str, Any], same: bool = True) -> bool:
    """Whether ``folder`` is the run directory of ``record`` (``same``: exactly; else but for a CRS's code).
    An unreadable config.json is another run's."""
    try:
        old = read_json(folder / "config.json") if (folder / "config.json").is_file() else None
    except CrsevalError:
        return False
    if not isinstance(old, dict) or "job" not in old:
        return False
    return _difference(old, record) is None if same else bool(revisions(old, record))


class RunStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        if self.root.exists() and not self.root.is_dir():
            raise CrsevalError(
                "is a file, not a run directory",
                file=self.root,
                fix="pass a folder (it is created when missing)",
            )
        self.repairs: list[str] = []
        self._lock = threading.Lock()
        self._files: dict[str, Any] = {}
        self._keys: dict[str, set[str]] = {}
        self.provenance: dict[str, Any] | None = None
        self._unwritten: dict[str, Any] | None = (
            None  # config.json, written with the run's first file
        )
        self._holding = False  # this store holds the folder's writer lock (runs/writer_lock.py)
        self._made: Path | None = (
            None  # the highest folder hold() made, removed if nothing was written
        )
        self._revise = False  # a CRS's code may differ from the run's (begin(revise=True))

    # ---- paths -------------------------------------------------------------------------------
    def path(self, *parts: str) -> Path:
        """A path inside the run directory; anything that would escape it is refused."""
        p = self.root.joinpath(*parts).resolve()
        if p != self.root and self.root not in p.parents:
            raise CrsevalError(
                f"path {'/'.join(parts)!r} leaves the run directory {self.root}",
                fix="use a plain relative name",
            )
        return p

    def writable(self, *parts: str) -> Path:
        """Like :meth:`path`, creating the parent folders (the run directory itself included). The first
        write into a run begun with :meth:`begin` writes its config.json first."""
        p = self.path(*parts)
        if self._unwritten is not None:
            record, self._unwritten = self._unwritten, None
            self._settle_config(record)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise CrsevalError(
                "cannot create a folder here: a file is in the way",
                file=p.parent,
                fix="choose another run directory",
            ) from None
        return p

    @property
    def cache_path(self) -> Path:
        return self.writable("llm_cache.sqlite")

    def log(self, message: str) -> None:
        with open(self.writable("run.log"), "a", encoding="utf-8") as fh:
            fh.write(time.strftime("%Y-%m-%d %H:%M:%S ") + message + "\n")

    # ---- config and signature ----------------------------------------------------------------
    def write_json(self, name: str, obj: Any) -> Path:
        p = self.writable(name)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(obj, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, p)
        return p

    def read_json(self, name: str) -> Any:
        return read_json(self.path(name))

    def save_signature(self, signature: dict[str, Any]) -> dict[str, Any]:
        """Write signature.json. In a run begun with :meth:`begin`, the identity derived from config.json
        (job, config hash) leads and the job's fields follow. Returns what was written, less the line."""
        if self.provenance is not None:
            signature = {
                **identity(self.provenance),
                **{k: v for k, v in signature.items() if k not in ("crseval", "git")},
            }
        self.write_json("signature.json", {**signature, "line": format_signature(signature)})
        return signature

    def begin(self, record: dict[str, Any], revise: bool = False) -> None:
        """Begin a run with its provenance (a :func:`crseval.runs.provenance.provenance` record). Checked and
        written with the run's first file, so a job that refuses its input leaves nothing behind and says
        why: a new run writes it as config.json; a resumed one must have the same job, configuration and
        input data (numbers would mix). Library versions may differ: the first run's are kept, run.log
        says so. With ``revise`` (``--retry-failed``) a CRS's code may differ: the new version is recorded
        in config.json's ``revisions`` and answers what the job runs again."""
        self.provenance = self._unwritten = record
        self._revise = revise

    def hold(self) -> None:
        """Take the run directory's writer lock now (the runner, before the job runs: a second writer is
        refused before any work), until :meth:`close`, which removes the folders made for it where the run
        wrote nothing (a refused input leaves nothing behind)."""
        self._holding, self._made = hold_new(self.root)

    def _settle_config(self, record: dict[str, Any]) -> None:
        if not self._holding:  # a store the runner did not lock: one writer from its first write on
            self.hold()
        p = self.path("config.json")
        old = self.read_json("config.json") if p.exists() else None
        if (
            not isinstance(old, dict) or "job" not in old
        ):  # new, or written before config.json held provenance
            self.write_json("config.json", record)
            if old is not None:
                self.log(
                    "NOTE config.json of an earlier crseval rewritten with this run's provenance"
                )
            return
        difference = _difference(old, record)
        revised = revisions(old, record) if difference is not None and self._revise else None
        if revised:
            old = {**old, "data": {**old["data"], **{r["field"]: r["to"] for r in revised}}}
            old["revisions"] = [*old.get("revisions", []), *revised]
            self.write_json("config.json", old)
            for r in revised:
                self.log(
                    f"NOTE {r['field']} changed ({r['from']} → {r['to']}): what runs again now runs on it"
                )
        elif difference is not None:
            fix = "use a new run directory, or the same configuration to resume"
            if old.get("job") == record["job"] and old.get("config") == json.loads(
                json.dumps(record["config"], default=str)
            ):
                fix += "; after fixing your CRS, add --retry-failed to run its failed work again"
            raise CrsevalError(f"this run directory was started with {difference}", file=p, fix=fix)
        if old.get("versions") != record["versions"]:
            self.log(
                f"NOTE resumed with other versions {record['versions']} (started with {old.get('versions')})"
            )
        self.provenance = old

    # ---- records -----------------------------------------------------------------------------
    def _records_path(self, name: str) -> Path:
        return self.path(LAYOUT["records"], f"{name}.jsonl")

    def records(self, name: str) -> list[dict[str, Any]]:
        """All complete records of a stream; repairs a torn trailing line (reported, not silent)."""
        p = self._records_path(name)
        if not p.exists():
            return []
        data = p.read_bytes()
        lines = data.split(b"\n")
        out, offset = [], 0
        for i, raw in enumerate(lines):
            is_last = i == len(lines) - 1
            if is_last and raw == b"":
                break
            try:
                rec = json.loads(raw.decode("utf-8"))
                if not isinstance(rec, dict):
                    raise ValueError("not an object")
                if is_last:  # complete JSON but no newline: the write was cut after the payload
                    raise ValueError("no trailing newline")
            except (ValueError, UnicodeDecodeError) as e:
                if is_last or (i == len(lines) - 2 and lines[-1] == b""):
                    msg = (
                        f"{p.name}: line {i + 1} was torn by an interrupted write ({e}); "
                        f"dropped {len(raw)} bytes, the record will be recomputed"
                    )
                    self.repairs.append(msg)
                    self.log("WARNING " + msg)
                    with open(p, "r+b") as fh:
                        fh.truncate(offset)
                    break
                raise CrsevalError(
                    f"corrupt record ({e})",
                    file=p,
                    line=i + 1,
                    fix="this is not an interrupted write; inspect or remove the line",
                ) from None
            out.append(rec)
            offset += len(raw) + 1
        return out

    def stream(self, name: str) -> Stream:
        """A stream of records with resumable work over it (:mod:`crseval.runs.stream`)."""
        return Stream(self, name)

    def done_keys(self, name: str) -> set[str]:
        with self._lock:
            if name not in self._keys:
                self._keys[name] = {str(r.get("key")) for r in self.records(name)}
            return set(self._keys[name])

    def drop_records(self, name: str, drop: Callable[[dict[str, Any]], bool]) -> int:
        """Remove the records of a stream that ``drop`` picks (their keys become work to do again); the
        stream is rewritten whole and replaced at once, so an interruption leaves the old or the new one.
        Returns how many were removed."""
        kept = [r for r in self.records(name) if not drop(r)]
        removed = len(self.records(name)) - len(kept)
        if removed:
            with self._lock:
                if fh := self._files.pop(name, None):
                    fh.close()
                path = self._records_path(name)
                tmp = path.with_suffix(".jsonl.tmp")
                tmp.write_text(
                    "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in kept),
                    encoding="utf-8",
                )
                os.replace(tmp, path)
                self._keys[name] = {str(r.get("key")) for r in kept}
        return removed

    def append(self, name: str, record: dict[str, Any]) -> bool:
        """Append one record (with a ``key``); returns False (writes nothing) if the key is done."""
        if "key" not in record:
            raise ValueError("records need a 'key' field")
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        self.done_keys(name)
        with self._lock:
            key = str(record["key"])
            if key in self._keys[name]:
                return False
            fh = self._files.get(name)
            if fh is None:
                fh = self._files[name] = open(
                    self.writable(LAYOUT["records"], f"{name}.jsonl"), "a", encoding="utf-8"
                )
            fh.write(line)
            fh.flush()
            self._keys[name].add(key)
        return True

    # ---- tables ------------------------------------------------------------------------------
    def write_table(self, name: str, df: pd.DataFrame) -> Path:
        """CSV and Parquet side by side under tables/."""
        csv_path = self.writable(LAYOUT["tables"], f"{name}.csv")
        self._check_declared(name, df)
        df.to_csv(csv_path, index=False)
        df.to_parquet(csv_path.with_suffix(".parquet"), index=False)
        return csv_path

    def write_table_parts(self, name: str, parts: Iterable[pd.DataFrame]) -> Path:
        """A table too large to hold at once (100,000s of turns), written part by part: the CSV appended, one
        Parquet row group per part (each part cast to the first part's schema). Reads back as one table."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        csv_path = self.writable(LAYOUT["tables"], f"{name}.csv")
        writer = None
        try:
            for k, df in enumerate(parts):
                if k == 0:
                    self._check_declared(name, df)
                df.to_csv(csv_path, index=False, header=k == 0, mode="w" if k == 0 else "a")
                table = pa.Table.from_pandas(df, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(csv_path.with_suffix(".parquet"), table.schema)
                writer.write_table(table.cast(writer.schema))
        finally:
            if writer is not None:
                writer.close()
        return csv_path

    def _check_declared(self, name: str, df: pd.DataFrame) -> None:
        """Every table a job writes is declared with all its columns (``crseval/*/metrics.py``): a
        column no declaration explains is a bug — an error where ``CRSEVAL_STRICT_TABLES`` is set (the
        test suite sets it), a run.log warning otherwise (a user's finished work is still written)."""
        problem = undeclared(name, df.columns)
        if problem and os.environ.get("CRSEVAL_STRICT_TABLES"):
            raise CrsevalError(problem, fix="declare it in the capability's metrics.py")
        if problem:
            self.log(f"warning: {problem}")

    def write_paper_table(self, name: str, df: pd.DataFrame) -> Path:
        """Markdown and booktabs LaTeX copies of a (rounded, headline) table under tables/."""
        md = self.writable(LAYOUT["tables"], f"{name}.md")
        md.write_text(markdown_table(df) + "\n", encoding="utf-8")
        md.with_suffix(".tex").write_text(latex_table(df), encoding="utf-8")
        return md

    def add_section(
        self,
        title: str,
        text: str = "",
        tables: list = (),
        figures: list = (),
        drill: dict[str, Any] | None = None,
    ) -> None:
        """Describe a report section (replaces an earlier section of the same title). ``tables`` and
        ``figures`` hold names or (name, caption) pairs — a caption says what the figure shows. ``drill``:
        ``{"table", "levels", "value", "highlight"}`` renders a table grouped level by level in nested
        collapsible blocks, each labelled with the mean of ``value`` (one value per innermost group), rows
        with a non-empty ``highlight`` column marked."""
        sections = [s for s in self.sections() if s["title"] != title]

        def entry(x: Any) -> str | list[str]:  # a bare name where there is no caption
            return x if isinstance(x, str) else x[0] if x[1] is None else [x[0], x[1]]

        sections.append(
            {
                "title": title,
                "text": text,
                "tables": [entry(t) for t in tables],
                "figures": [entry(f) for f in figures],
                **({"drill": drill} if drill else {}),
            }
        )
        self.write_json("report_sections.json", sections)

    def sections(self) -> list[dict[str, Any]]:
        """The report sections, each checked: a title, text, table and figure names."""
        return checked_sections(self.path("report_sections.json"))

    def figure_path(self, name: str) -> Path:
        return self.writable(LAYOUT["figures"], f"{name}.png")

    def close(self) -> None:
        with self._lock:
            for fh in self._files.values():
                fh.close()
            self._files.clear()
            if self._holding:
                self._holding = False
                release(self.root)
            made, self._made = self._made, None
            if made is not None:
                remove_unwritten(self.root, made)

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
