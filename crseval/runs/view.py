"""A run directory, read-only: ``crseval.load_run(path)``. Nothing is created, repaired or rewritten —
tables come back as pandas DataFrames read from their Parquet copy, so they keep the types they were
written with (from the CSV in a run written before crseval kept one), records as dicts (a torn trailing
line is skipped and counted)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from crseval.core.errors import CrsevalError
from crseval.core.files import check_lines
from crseval.core.glossary import column, renamed
from crseval.core.registry import get_table


def renames(table: str, columns: list[str]) -> dict[str, str]:
    """Old name → today's of the ``columns`` an older crseval wrote ``table`` with (none for a table of
    today): the table's own renames (its declaration's ``renamed``, taken together where none of the
    names they bring is there yet: ``shift_turns``' ``system`` → ``reply`` with ``model`` → ``system``),
    then the naming every table changed to in 0.2 (``ci_low`` → ``ci_lo``, ``p_value`` → ``p``)."""
    spec = get_table(table)
    moves = dict(spec.renamed) if spec else {}
    brought = set(moves.values()) - set(moves)
    old = {c: moves[c] for c in columns if c in moves} if not brought & set(columns) else {}
    return old | {
        c: new
        for c in columns
        if c not in old
        and (new := renamed(c))
        and column(table, c) is None
        and column(table, new) is not None
    }


def current_names(table: str, df: pd.DataFrame) -> pd.DataFrame:
    """A table written by an older crseval with its columns under today's names (a DeprecationWarning
    says which), so code, ``compare`` and the report read old and new runs alike."""
    old = renames(table, list(map(str, df.columns)))
    if old:
        warnings.warn(
            f"{table}: columns renamed since the run was written: "
            + ", ".join(f"{a} → {b}" for a, b in old.items()),
            DeprecationWarning,
            stacklevel=3,
        )
    return df.rename(columns=old)


def _parquet(path: Path) -> pd.DataFrame:
    """A table as written, its types kept (booleans stay booleans, ids stay strings)."""
    import pyarrow as pa

    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError) as e:
        raise CrsevalError(
            f"unreadable table ({type(e).__name__})",
            file=path,
            fix="the file is truncated or not a Parquet file written by crseval",
        ) from None


def _csv(path: Path) -> pd.DataFrame:
    """A table of a run written before crseval kept Parquet beside every CSV (types guessed by pandas)."""
    check_lines(path.read_bytes(), path)
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise CrsevalError(
            f"unreadable table ({type(e).__name__})",
            file=path,
            fix="the file is truncated or not a CSV written by crseval",
        ) from None


class _Tables(Mapping):
    """name → DataFrame, read when first asked for from tables/NAME.parquet (types kept), or from
    tables/NAME.csv in a run that has no Parquet copy."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cache: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            path = self.folder / f"{name}.csv"
            if not path.is_file():
                raise KeyError(name)
            pq = path.with_suffix(".parquet")
            df = _parquet(pq) if pq.is_file() else _csv(path)
            self._cache[name] = current_names(name, df)
        return self._cache[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(p.stem for p in self.folder.glob("*.csv")))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def entries(section: dict[str, Any], kind: str) -> list[tuple[str, str | None]]:
    """A section's tables or figures (``kind``) as (name, caption or None) pairs."""
    return [(x, None) if isinstance(x, str) else (x[0], x[1]) for x in section.get(kind, [])]


def read_json(path: Path) -> Any:
    """A JSON file of a run directory; a missing, invalid or non-UTF-8 file is a one-line error naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CrsevalError("not found in the run directory", file=path) from None
    except json.JSONDecodeError as e:
        raise CrsevalError(f"invalid JSON ({e.msg})", file=path, line=e.lineno) from None
    except UnicodeDecodeError:
        raise CrsevalError(
            "not UTF-8 text", file=path, fix="the file is damaged: rerun the command that wrote it"
        ) from None


def checked_sections(path: Path) -> list[dict[str, Any]]:
    """The report sections of ``report_sections.json`` (none where it is missing), each checked: a title,
    text, table and figure names or [name, caption] pairs."""
    if not path.exists():
        return []
    raw = read_json(path)

    def entry(x: Any) -> bool:  # a name, or [name, caption]
        return isinstance(x, str) or (
            isinstance(x, list) and len(x) == 2 and all(isinstance(v, str) for v in x)
        )

    ok = isinstance(raw, list) and all(
        isinstance(s, dict)
        and isinstance(s.get("title"), str)
        and isinstance(s.get("text", ""), str)
        and all(entry(x) for k in ("tables", "figures") for x in s.get(k, []))
        for s in raw
    )
    if not ok:
        raise CrsevalError(
            "report sections are not what crseval writes",
            file=path,
            expected='[{"title": …, "text": …, "tables": [names], "figures": [names]}]',
            fix="delete the file and rerun the command that wrote the run",
        )
    return raw


class Run:
    def __init__(self, path: str | Path) -> None:
        self.root = Path(path)
        if not self.root.is_dir():
            raise CrsevalError(
                "is a file, not a run directory"
                if self.root.exists()
                else "run directory not found",
                file=self.root,
                fix="pass a folder written by a crseval command (see --out)",
            )
        self.tables: Mapping[str, pd.DataFrame] = _Tables(self.root / "tables")
        self.skipped_lines = 0

    def json(self, name: str) -> Any:
        """A JSON file of the run, None where it has none."""
        p = self.root / name
        return read_json(p) if p.is_file() else None

    @property
    def signature(self) -> dict[str, Any] | None:
        return self.json("signature.json")

    @property
    def config(self) -> dict[str, Any] | None:
        return self.json("config.json")

    def path(self, *parts: str) -> Path:
        """A path inside the run directory; anything that would escape it is refused."""
        root = self.root.resolve()
        p = root.joinpath(*parts).resolve()
        if p != root and root not in p.parents:
            raise CrsevalError(
                f"path {'/'.join(parts)!r} leaves the run directory {root}",
                fix="use a plain relative name",
            )
        return p

    def read_json(self, name: str) -> Any:
        return read_json(self.path(name))

    def sections(self) -> list[dict[str, Any]]:
        """The report sections the run's jobs described (checked; none where there are none)."""
        return checked_sections(self.path("report_sections.json"))

    def records(self, stream: str) -> list[dict[str, Any]]:
        """The complete records of ``records/STREAM.jsonl`` (a torn line is skipped and counted)."""
        p = self.root / "records" / f"{stream}.jsonl"
        out = []
        if p.is_file():
            for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    self.skipped_lines += 1
                    continue
                if isinstance(rec, dict):
                    out.append(rec)
        return out

    def __repr__(self) -> str:
        return f"Run({str(self.root)!r}, tables={list(self.tables)})"


def _is_timing(column: str) -> bool:
    """Wall-clock columns (``seconds``, ``llm_seconds``…) measure how a run went, not what it found."""
    return column == "seconds" or column.endswith("_seconds")


def table_differences(a: Run, b: Run) -> dict[str, str]:
    """Every table of either run that differs in the other, wall-clock columns aside: name → 'missing in …'
    or 'differs'. Empty when the two runs found the same."""
    out = {}
    for name in sorted(set(a.tables) | set(b.tables)):
        if name not in a.tables or name not in b.tables:
            out[name] = f"missing in {(b if name in a.tables else a).root}"
            continue
        x, y = (
            t.drop(columns=[c for c in t.columns if _is_timing(c)])
            for t in (a.tables[name], b.tables[name])
        )
        if not x.equals(y):
            out[name] = "differs"
    return out


def load_run(path: str | Path) -> Run:
    """Open a run directory read-only: ``run.tables['reliability']``, ``run.signature``, ``run.records(...)``."""
    return Run(path)
