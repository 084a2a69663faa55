"""File reading that turns every problem into a CrsevalError naming the file, line and field."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import orjson

from crseval.core.errors import CrsevalError
from crseval.core.files import check_lines
from crseval.core.signature import content_hash

csv.field_size_limit(1 << 24)


@dataclass
class DatasetInfo:
    """Where a dataset came from and what the loader noticed (filtered, repaired, missing)."""

    name: str
    path: str
    content_hash: str
    notes: list[str] = field(default_factory=list)

    def signature(self) -> str:
        return f"{self.name}@{self.content_hash}"


def existing(path: str | Path, what: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise CrsevalError(
            f"{what} not found",
            file=p,
            fix="check the path (datasets are not bundled; see the README for where to get them)",
        )
    return p


def files_of(path: Path, pattern: str, expected: str) -> list[Path]:
    """``path`` itself, or the files matching ``pattern`` in the folder ``path``."""
    files = sorted(path.glob(pattern)) if path.is_dir() else [path]
    if not files:
        raise CrsevalError(f"folder holds no {pattern} files", file=path, expected=expected)
    return files


def read_text(path: str | Path) -> str:
    """Whole file as UTF-8 text; a bad byte is reported with its line and column, an overlong line is
    refused (:mod:`crseval.core.files`)."""
    p = Path(path)
    if p.is_dir():
        raise CrsevalError(
            "is a folder, not a file",
            file=p,
            fix="pass a file (or the folder form the command documents)",
        )
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CrsevalError("file not found", file=p, fix="check the path") from None
    except OSError as e:
        raise CrsevalError(f"cannot read file: {e.strerror}", file=p) from None
    check_lines(data, p)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise CrsevalError(
            f"byte 0x{data[e.start]:02x} at column {col} is not valid UTF-8",
            file=p,
            line=line,
            expected="a UTF-8 encoded file",
            fix="re-save the file as UTF-8",
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_rows(
    path: str | Path,
    *,
    delimiter: str = ",",
    required: tuple[str, ...] = (),
    quoting: int = csv.QUOTE_MINIMAL,
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """(header, iterator of (line number, row dict)) for a delimited file; checks required columns
    and that every row has as many fields as the header."""
    p = Path(path)
    text = read_text(p)
    if not text.strip():
        raise CrsevalError("file is empty", file=p, expected="a header line and at least one row")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    try:
        header = next(reader)
    except csv.Error as e:
        raise CrsevalError(f"unreadable header: {e}", file=p, line=1) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise CrsevalError(
            f"missing column {missing[0]!r}",
            file=p,
            line=1,
            field=missing[0],
            expected="columns " + ", ".join(required),
        )
    dupes = {c for c in header if header.count(c) > 1 and c}
    if dupes:
        raise CrsevalError(
            f"duplicated column {sorted(dupes)[0]!r}", file=p, line=1, field=sorted(dupes)[0]
        )

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        try:
            for values in reader:
                line = reader.line_num
                if not values or (len(values) == 1 and not values[0].strip()):
                    continue
                if len(values) != len(header):
                    raise CrsevalError(
                        f"row has {len(values)} fields but the header has {len(header)}",
                        file=p,
                        line=line,
                        expected=f"{len(header)} {delimiter!r}-separated fields",
                        fix="the file may be truncated or a field contains an unquoted delimiter",
                    )
                yield line, dict(zip(header, values))
        except csv.Error as e:
            raise CrsevalError(f"malformed row: {e}", file=p, line=reader.line_num) from None

    return header, rows()


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    p = Path(path)
    text = read_text(p)
    if not text.strip():
        raise CrsevalError("file is empty", file=p, expected="one JSON object per line")
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield i, json.loads(line)
        except json.JSONDecodeError as e:
            raise CrsevalError(
                f"invalid JSON ({e.msg} at column {e.colno})",
                file=p,
                line=i,
                expected="one complete JSON object per line",
                fix="the line may be truncated (an interrupted download or write)",
            ) from None


def read_json(path: str | Path) -> Any:
    """A JSON document (orjson, ~5× faster than the standard library; files with the non-standard NaN /
    Infinity that Python writes fall back to ``json``)."""
    p = Path(path)
    text = read_text(p)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CrsevalError(
            f"invalid JSON ({e.msg})", file=p, line=e.lineno, expected="a complete JSON document"
        ) from None


def need(
    obj: Any,
    key: str,
    kind: type | tuple[type, ...],
    *,
    file: Path,
    line: int | None = None,
    context: str = "",
) -> Any:
    """obj[key] with a type check, or a CrsevalError naming the field."""
    if not isinstance(obj, dict):
        raise CrsevalError(
            f"{context or 'record'} is {type(obj).__name__}",
            file=file,
            line=line,
            expected="a JSON object",
        )
    if key not in obj:
        raise CrsevalError(
            f"missing field in {context or 'record'}", file=file, line=line, field=key
        )
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise CrsevalError(
            f"has type {type(value).__name__}", file=file, line=line, field=key, expected=names
        )
    return value


def to_float(
    value: str, *, file: Path, line: int, field: str, allow_empty: bool = False
) -> float | None:
    v = value.strip()
    if not v or v.lower() in ("nan", "na", "null", "none"):
        if allow_empty:
            return None
        raise CrsevalError("empty value", file=file, line=line, field=field, expected="a number")
    try:
        return float(v)
    except ValueError:
        raise CrsevalError(
            f"{value!r} is not a number", file=file, line=line, field=field, expected="a number"
        ) from None


def dataset_info(name: str, path: str | Path, *files: str | Path) -> DatasetInfo:
    return DatasetInfo(name, str(path), content_hash(list(files) or [path]))
