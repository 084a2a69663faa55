"""What a benchmark measured, kept where the documentation reads it.

Every script in ``bench/`` imports it (``import _record as record``), declares its results with
``record.table(title, rows)`` and ends with ``raise SystemExit(record.run(main))``. ``run`` echoes and
keeps what the script prints and, when the script declared a table (one that skips for missing data
declares none and overwrites nothing), writes ``bench/results/<script>[.<args hash>].json``: the command,
the date, the machine (CPU model, cores, memory, platform, library versions), a signature (crseval
version, git describe, content hashes of the script and of the data it names), the wall time, the exit
status, the tables and the output. The benchmarks page of the documentation is generated from these
files (``docs/conf.py``); its numbers are never pasted.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable

from crseval.core.signature import content_hash, git_describe
from crseval.runs.provenance import versions

RESULTS = Path(__file__).resolve().parent / "results"
_TABLES: list[dict[str, Any]] = []
_DATA: list[str] = []


def table(title: str, rows: list[dict[str, Any]], note: str = "") -> None:
    """Declare one result table (rows of column → value, columns in the first row's order)."""
    _TABLES.append({"title": title, "rows": rows, "note": note})


def data(*paths: str | Path) -> None:
    """Name the input files or folders whose content the numbers depend on (hashed into the signature)."""
    _DATA.extend(str(p) for p in paths if Path(p).exists())


class _Tee(io.TextIOBase):
    def __init__(self, stream) -> None:
        self.stream, self.kept = stream, io.StringIO()

    def write(self, s: str) -> int:
        self.kept.write(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()


def machine() -> dict[str, Any]:
    def first(path: str, key: str) -> str:
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "unknown"

    mem = first("/proc/meminfo", "MemTotal")
    return {
        "cpu": first("/proc/cpuinfo", "model name"),
        "cores": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "memory_gib": round(int(mem.split()[0]) / 2**20, 1) if mem != "unknown" else None,
        "platform": f"{platform.system()} {platform.machine()}",
        "versions": versions(),
    }


def run(main: Callable[[], int | None]) -> int:
    """Run a benchmark's ``main``, echoing and keeping its output, then write its record."""
    script = Path(sys.argv[0]).resolve()
    args = sys.argv[1:]
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    t0 = time.perf_counter()
    try:
        status = main() or 0
    finally:
        sys.stdout = tee.stream
    if not _TABLES:
        return status
    name = script.stem + (f".{content_hash(json.dumps(args).encode(), 8)}" if args else "")
    record = {
        "bench": script.stem,
        "command": " ".join(["python", f"bench/{script.name}", *args]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "signature": {
            "crseval": versions()["crseval"],
            "git": git_describe(),
            "script": content_hash([script]),
            "data": {Path(p).name: content_hash([p]) for p in _DATA},
        },
        "wall_s": round(time.perf_counter() - t0, 1),
        "status": status,
        "tables": _TABLES,
        "output": tee.kept.getvalue(),
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False, default=float) + "\n")
    print(f"recorded: {path.relative_to(RESULTS.parents[1])}")
    return status
