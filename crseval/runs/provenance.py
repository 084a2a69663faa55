"""What determines a run, written as its ``config.json``, and the signature derived from it.

``provenance(job, config)`` is the validated config with every default resolved, a fingerprint of every
file or folder it names (name@content-hash), the versions of crseval and of the libraries that compute,
and the working directory relative paths are read from. The run signature's identity is a function of
that record (:func:`identity`): the job, crseval's version and git describe, and one hash over the
whole config and its data fingerprints — so no field can be forgotten, and changing any of them
changes the signature. A job adds what it resolved at run time (the LLM's identity, a fallback, the
metric's parameters in readable form) beside it.
"""

from __future__ import annotations

import enum
import os
import platform
import typing
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel

from crseval.core.signature import content_hash, git_describe, stable_json
from crseval.core.version import __version__

# the libraries whose versions can change a number crseval reports
LIBRARIES = (
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "statsmodels",
    "pydantic",
    "krippendorff",
    "choix",
    "gensim",
    "nltk",
    "torch",
    "transformers",
    "sentence-transformers",
    "xllamacpp",
    "llama_cpp_python",
)

_fingerprints: dict[tuple[str, int, int], str] = {}


def fingerprint(path: Path) -> str:
    """``name@hash`` of a file or folder's content (cached per path, size and modification time)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _fingerprints:
        _fingerprints[key] = f"{path.name}@{content_hash(path)}"
    return _fingerprints[key]


def _choice(annotation: Any) -> bool:
    """A field that holds one of fixed choices (a Literal or an Enum, optionally None) names no path,
    even where a folder of the same name exists (``definition = "crseval"`` beside the package)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Literal:
        return True
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return True
    return bool(args) and typing.get_origin(annotation) is not list and all(map(_choice, args))


def _paths(value: Any, where: str) -> Iterator[tuple[str, Path | str]]:
    """(field, path) for every value of a config that names an existing file or folder (a field marked
    ``json_schema_extra={"fingerprint": False}`` names none), and every file a model's ``data_files()``
    says it loads (a path, or a fingerprint already made)."""
    if isinstance(value, BaseModel):
        for name, field in type(value).model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            if not _choice(field.annotation) and extra.get("fingerprint", True):
                yield from _paths(getattr(value, name), f"{where}.{name}" if where else name)
        # what a model loads that no field names as a path (a plug-in's module file, or the fingerprint
        # of a function given from Python)
        for name, found in getattr(value, "data_files", dict)().items():
            yield f"{where}.{name}" if where else name, found
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _paths(v, f"{where}.{i}")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, f"{where}.{k}")
    elif isinstance(value, (str, Path)) and str(value) not in ("", "."):
        try:
            path = Path(value)
            if path.exists():
                yield where, path
        except (OSError, ValueError):  # a string that cannot be a path name
            return


def _by_content(config: Any, data: dict[str, str]) -> Any:
    """``config`` with each value that ``data`` fingerprints (by its dotted field, ``data.0``) replaced by
    the fingerprint."""
    import copy

    out = copy.deepcopy(config)
    for where, found in data.items():
        *path, last = where.split(".")
        node = out
        for key in path:
            node = _step(node, key)
        if _step(node, last) is not None:
            node[int(last) if isinstance(node, list) else last] = found
    return out


def _step(node: Any, key: str) -> Any:
    if isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return node[int(key)]
    return node.get(key) if isinstance(node, dict) else None


def versions() -> dict[str, str]:
    """crseval's version and git describe, Python's, and each computing library's (a copy: callers keep it)."""
    return dict(_versions())


@lru_cache(maxsize=1)
def _versions() -> dict[str, str]:  # read once per process: each lookup scans site-packages (~2 ms)
    out = {"crseval": __version__, "git": git_describe(), "python": platform.python_version()}
    for lib in LIBRARIES:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            continue
    return out


def invocation_fields(config: BaseModel) -> set[str]:
    """Fields that steer one invocation, not what is measured (``json_schema_extra={"invocation": True}``:
    ``--retry-failed``): config.json and the signature leave them out, so a run resumed with one is the same
    run."""
    return {
        name
        for name, field in type(config).model_fields.items()
        if isinstance(field.json_schema_extra, dict) and field.json_schema_extra.get("invocation")
    }


def code_fields(value: Any, where: str = "") -> list[str]:
    """The data fields that are a CRS's code (what a model's ``data_files()`` names: a plug-in's module file,
    a given function's source) — the input a researcher fixes between a run and its ``--retry-failed``."""
    out = []
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            out += code_fields(getattr(value, name), f"{where}.{name}" if where else name)
        out += [f"{where}.{k}" if where else k for k in getattr(value, "data_files", dict)()]
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            out += code_fields(v, f"{where}.{i}")
    return out


def provenance(job: str, config: BaseModel) -> dict[str, Any]:
    """The record ``config.json`` holds: job, validated config (defaults resolved), data fingerprints (and
    which of them are a CRS's code), library versions, platform and working directory."""
    return {
        "job": job,
        "config": config.model_dump(mode="json", exclude=invocation_fields(config)),
        "data": {
            field: p if isinstance(p, str) else fingerprint(p) for field, p in _paths(config, "")
        },
        "code": code_fields(config),
        "versions": versions(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cwd": os.getcwd(),
    }


def identity(record: dict[str, Any]) -> dict[str, Any]:
    """The part of a signature that is a function of the provenance record: job, crseval version, git
    describe and one hash over the config and its data fingerprints — a path in the config stands for the
    content it names, so the same data under another folder (a card's parts under another --out) signs
    the same."""
    digest = content_hash(
        stable_json(
            {"config": _by_content(record["config"], record["data"]), "data": record["data"]}
        ).encode()
    )
    return {
        "crseval": record["versions"]["crseval"],
        "git": record["versions"]["git"],
        "job": record["job"],
        "config": digest,
    }
