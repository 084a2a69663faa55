"""Reproducibility signatures (the sacreBLEU idea): everything that determines a number, in one line.

Two runs with the same signature must give the same numbers. Secrets never enter a signature:
:func:`make_signature` refuses keys that look like credentials.
"""

from __future__ import annotations

import hashlib
import os
import json
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from crseval.core.version import __version__

_SECRET_WORDS = ("api_key", "apikey", "token", "secret", "password", "authorization")


def _folder_files(folder: Path) -> list[Path]:
    """The files whose content is a folder's content: not bytecode caches (``__pycache__``), hidden
    files or folders, nor crseval run directories inside it (a run's outputs are not its input; a run
    directory given as input is its records, hashed by :func:`_hash_records`)."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [
            d
            for d in dirs
            if d != "__pycache__" and not d.startswith(".") and not _is_run_dir(Path(root) / d)
        ]
        out += [Path(root) / f for f in files if not f.startswith(".")]
    return sorted(out)


def _is_run_dir(path: Path) -> bool:
    return (path / "config.json").is_file() and (
        (path / "records").is_dir() or (path / "tables").is_dir()
    )


def _hash_records(h, records: Path) -> None:
    """A run's records as a set of lines per stream: the order a resumed run appended them in (workers
    finish in any order) is not content, so an interrupted and resumed run hashes as an uninterrupted one."""
    for f in sorted(records.rglob("*")):
        if f.is_file() and not f.name.startswith("."):
            h.update(str(f.relative_to(records)).encode())
            for line in sorted(f.read_bytes().splitlines()):
                h.update(line + b"\n")


def content_hash(paths: Iterable[str | Path] | bytes | str, length: int = 12) -> str:
    """sha256 of file contents (in the order given) or of bytes/str; a short hex prefix. A folder's
    content is its files' names and contents (see :func:`_folder_files` for what is left out); a run
    directory's is its records, in any order (its report, tables and log are rewritten by every resume)."""
    h = hashlib.sha256()
    if isinstance(paths, bytes):
        h.update(paths)
    elif isinstance(paths, str) and not Path(paths).exists():
        h.update(paths.encode())
    else:
        for p in [paths] if isinstance(paths, (str, Path)) else paths:
            p = Path(p)
            if _is_run_dir(p) and (p / "records").is_dir():
                _hash_records(h, p / "records")
                continue
            files = _folder_files(p) if p.is_dir() else [p]
            for f in files:
                if p.is_dir():  # inside a folder, names are content too
                    h.update(str(f.relative_to(p)).encode())
                with open(f, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
    return h.hexdigest()[:length]


def stable_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def prompt_hash(*parts: Any) -> str:
    return content_hash(stable_json(parts).encode(), 10)


@lru_cache(maxsize=1)
def git_describe() -> str:
    """``git describe`` of the checkout crseval runs from, or 'unknown' outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "describe", "--always", "--dirty", "--tags"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def make_signature(
    *,
    data: str,
    metric: dict[str, Any] | None = None,
    llm: Any = None,
    model: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """The signature of a result, built the same way by every job: crseval version and git describe, the
    data (name@content-hash), the LLM(s) that produced any number, the trained model, the metric with its
    parameters, then job-specific fields (seed, fallbacks, …). Empty parts are left out."""
    fields = {"data": data, "llm": llm, "model": model, "metric": metric, **extra}
    fields = {k: v for k, v in fields.items() if v not in (None, {}, [])}
    for key in _walk_keys(fields):
        if any(w in key.lower() for w in _SECRET_WORDS):
            raise ValueError(
                f"refusing to put {key!r} into a signature (secrets never enter signatures)"
            )
    return {"crseval": __version__, "git": git_describe(), **fields}


def _walk_keys(obj: Any) -> Iterable[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _walk_keys(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _walk_keys(v)


def format_signature(sig: dict[str, Any]) -> str:
    """One line: ``crseval:0.1.0|git:abc123|data:inspired@1f2e…|llm:llamacpp/qwen…|T:0|seed:0``."""

    def flat(prefix: str, obj: Any) -> Iterable[str]:
        if isinstance(obj, dict):
            for k in obj:
                yield from flat(f"{prefix}.{k}" if prefix else str(k), obj[k])
        elif isinstance(obj, (list, tuple)):
            yield f"{prefix}:{','.join(map(str, obj))}"
        else:
            yield f"{prefix}:{obj}"

    return "|".join(flat("", sig))
