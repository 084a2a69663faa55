"""Where a plug-in CRS comes from: a ``module:function`` string, or a function handed over from Python.

``crseval.evaluate("shift.run", models=[{"name": "mine", "kind": "callable", "target": respond}])`` works in
a notebook: the function is kept for this process under ``module:qualname`` (the string ``config.json``
records), and the run's input fingerprint holds a hash of its source, so editing it is seen on resume.
A string target's fingerprint is its module file's (found, not imported), never its folder's.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from contextlib import contextmanager
from typing import Annotated, Any, Callable, Iterator

from pydantic import BeforeValidator

from crseval.core.signature import content_hash

GIVEN: dict[str, Callable[..., Any]] = {}


def given(value: Any) -> Any:
    """A function passed where a target string is expected → ``module:qualname``, kept in :data:`GIVEN`."""
    if callable(value) and not isinstance(value, str):
        module = getattr(value, "__module__", None) or "python"
        name = f"{module}:{getattr(value, '__qualname__', type(value).__name__)}"
        GIVEN[name] = value
        return name
    return value


Target = Annotated[str | None, BeforeValidator(given)]


def file_of(path: str, folder: str | Path | None) -> Path:
    """A ``.py`` target's file: relative to ``folder`` (the config's) where it is there, else as given."""
    inside = Path(folder) / path if folder is not None else None
    return inside if inside is not None and inside.is_file() else Path(path)


def split_target(target: str) -> tuple[str, str]:
    """(module or ``.py`` path, function) of ``pkg.mod:fn``, ``file.py`` (its ``respond``) or ``file.py:fn``."""
    where, _, attr = target.rpartition(":") if ".py:" in target else target.partition(":")
    return (where, attr or "respond") if where.endswith(".py") else (where, attr)


@contextmanager
def searched_first(folder: str | Path | None) -> Iterator[None]:
    """``folder`` at the front of sys.path while imports are resolved (the config's or working folder)."""
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        if added:
            sys.path.remove(str(folder))


def in_folder(module: str, folder: str | Path | None) -> Path | None:
    """``folder/module.py`` where a top-level module is a file there (it wins over the Python path)."""
    if folder is None or "." in module:
        return None
    path = Path(folder) / f"{module}.py"
    return path if path.is_file() else None


def module_file(target: str, folder: str | Path | None) -> Path | None:
    """The file ``target``'s module would be imported from (``folder`` searched first), or None."""
    module, _ = split_target(target)
    if module.endswith(".py"):
        path = file_of(module, folder)
        return path if path.is_file() else None
    if (local := in_folder(module, folder)) is not None:
        return local
    with searched_first(folder):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # reported, with its fix, when the run imports it
            spec = None
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and Path(origin).is_file() else None


def target_input(target: str | None, folder: str | Path | None) -> Path | str | None:
    """What a run depends on of a callable target: a given function → ``qualname@source-hash``; a module
    → its file (fingerprinted by the run's provenance); an endpoint or nothing → None."""
    if not target or target.startswith(("http://", "https://")):
        return None
    if target in GIVEN:
        fn = GIVEN[target]
        try:
            source = inspect.getsource(fn)
        except (OSError, TypeError):  # a builtin or a function typed at a prompt: its name only
            source = target
        return f"{target.partition(':')[2]}@{content_hash(source.encode())}"
    return module_file(target, folder)
