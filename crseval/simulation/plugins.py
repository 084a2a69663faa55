"""Your own CRS: a Python callable or an HTTP endpoint, wrapped as a :class:`~crseval.simulation.crs.CRS`.

A callable takes the history ``[{"speaker": "user"|"system", "text": …}, …]`` (ending with a user turn)
and returns the reply text or ``{"text": …, "constraints": {…}}``; an endpoint receives
``{"history": [...]}`` by POST and answers the same. A plug-in that fails is a recorded result, not a
crash of the run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Callable

from crseval.core.errors import CrsevalError
from crseval.core.user_output import captured
from crseval.simulation.crs import CRSReply, History
from crseval.simulation.targets import GIVEN, file_of, in_folder, searched_first, split_target


class CallableCRS:
    """Wraps ``fn(history) -> str | {"text": …, "constraints": {…}}`` (your own system)."""

    def __init__(self, name: str, fn: Callable[[History], Any]) -> None:
        self.name, self.fn = name, fn

    def respond(self, history: History) -> CRSReply:
        try:
            with captured(self.name):  # what it prints goes to the run's log, not crseval's output
                out = self.fn([dict(h) for h in history])
        except (
            Exception
        ) as e:  # a user's system failing is a recorded result, not a crash of the run
            return CRSReply("", error=f"{type(e).__name__}: {e}")
        return _reply_from(out, self.name)


class HttpCRS:
    """A CRS behind an HTTP endpoint: POST ``{"history": [...]}`` → ``{"text": …, "constraints": …}``
    (``reply`` is accepted for ``text``). Each call waits up to ``timeout_s`` (60 s) and is tried
    ``retries`` (2) more times, at once, on any failure (a connection error, a timeout, an HTTP error status,
    a body that is not JSON); a session whose call still fails is recorded as failed, with the last error."""

    def __init__(self, name: str, url: str, timeout_s: float = 60.0, retries: int = 2) -> None:
        self.name, self.url, self.timeout_s, self.retries = name, url, timeout_s, retries

    def respond(self, history: History) -> CRSReply:
        import httpx

        error = "no attempt"
        for attempt in range(self.retries + 1):
            try:
                r = httpx.post(self.url, json={"history": history}, timeout=self.timeout_s)
                if r.status_code >= 500:
                    error = f"HTTP {r.status_code}"
                    continue
                r.raise_for_status()
                try:
                    body = r.json()
                except ValueError:  # an HTML error page, a proxy's text: say what came back
                    start = r.text[:80].replace("\n", " ")
                    kind = r.headers.get("content-type", "no content type")
                    error = f"not JSON ({kind}), HTTP {r.status_code}, starting {start!r}"
                    continue
                reply = _reply_from(body, self.name)
                reply.retries = attempt
                return reply
            except (httpx.HTTPError, ValueError) as e:
                error = f"{type(e).__name__}: {e}"
        return CRSReply("", error=error, retries=self.retries)


def _reply_from(out: Any, name: str) -> CRSReply:
    if isinstance(out, str):
        return CRSReply(out)
    if isinstance(out, dict) and isinstance(out.get("text", out.get("reply")), str):
        cons = out.get("constraints")
        return CRSReply(out.get("text", out.get("reply")), cons if isinstance(cons, dict) else None)
    got = type(out).__name__
    if isinstance(out, dict):  # say what it did hold: a misspelt key is the usual mistake
        keys = ", ".join(repr(k) for k in list(out)[:8]) + (", …" if len(out) > 8 else "")
        got = f"a dict with keys {keys}" if out else "an empty dict"
        if isinstance(out.get("text"), (dict, list, int, float)):
            got += f" ('text' is a {type(out['text']).__name__})"
    return CRSReply(
        "",
        error=f"CRS {name!r} returned {got}, expected a string or "
        "{'text': ..., 'constraints': {...}}",
    )


def load_callable(
    target: str, folder: str | Path | None = None, where: str = "models.target"
) -> Callable[[History], Any]:
    """``package.module:function``, ``path/to/file.py`` (its ``respond``) or ``path/to/file.py:function`` →
    the function. ``folder`` (the config file's folder, or the working folder) is searched first, so a
    ``my_crs.py`` there works without touching PYTHONPATH. Each failure is one line naming the fix."""
    if target in GIVEN:  # a function handed over from Python
        return GIVEN[target]
    mod, attr = split_target(target)
    if mod.endswith(".py"):
        return _from_file(file_of(mod, folder), attr, where)
    if not mod or not attr:
        raise CrsevalError(
            f"bad callable {target!r}",
            field=where,
            expected="'package.module:function', 'file.py' (its respond) or 'file.py:function'",
        )
    local = in_folder(mod, folder)
    if (
        local is not None
    ):  # the folder's own file, as it is now (not a same-named module imported before)
        return _from_file(local, attr, where)
    with searched_first(folder), captured(mod):
        try:
            module = importlib.import_module(mod)
        except ImportError as e:
            found = getattr(e, "name", None) != mod.split(".")[0]  # but an import inside it failed
            if found:
                raise CrsevalError(f"importing {mod!r} failed: {e}", field=where) from None
            raise CrsevalError(
                f"no module {mod!r} in {Path(folder or '.').resolve()} or on the Python path",
                field=where,
                fix=f"give the file's path ('path/to/{mod.split('.')[-1]}.py:{attr}'), run from the "
                "folder that holds it, or add that folder to PYTHONPATH",
            ) from None
    return _attribute(module, attr, where)


# (file, mtime) → its module: a file is run once, as an import is
_FILES: dict[tuple[str, int], Any] = {}


def _from_file(path: Path, attr: str, where: str) -> Callable[[History], Any]:
    """The function ``attr`` of the Python file ``path`` (run as a module named after the file, kept out of
    sys.modules: another file, or a module on the path, may share that name). Its folder is searched first
    while it runs, so a CRS in several files imports its siblings from anywhere; those siblings leave
    sys.modules afterwards, so a v2 in another folder imports its own ``crs_common.py``, not v1's."""
    import importlib.util

    if not path.is_file():
        raise CrsevalError(f"no such file {str(path)!r}", field=where, fix="check the path")
    key = (str(path.resolve()), path.stat().st_mtime_ns)
    if key not in _FILES:
        spec = importlib.util.spec_from_file_location(path.stem, key[0])
        module = importlib.util.module_from_spec(spec)
        folder, before = Path(key[0]).parent, set(sys.modules)
        try:
            with searched_first(folder), captured(path.stem):
                spec.loader.exec_module(module)
        except Exception as e:  # the user's file: any error is theirs to fix, in one line
            raise CrsevalError(
                f"importing {str(path)!r} failed: {type(e).__name__}: {e}", field=where
            ) from None
        finally:
            for name in set(sys.modules) - before:
                if Path(getattr(sys.modules[name], "__file__", None) or "/").parent == folder:
                    del sys.modules[name]
        _FILES[key] = module
    return _attribute(_FILES[key], attr, where)


def _attribute(module: Any, attr: str, where: str) -> Callable[[History], Any]:
    fn = getattr(module, attr, None)
    if fn is None:
        found = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise CrsevalError(
            f"{module.__name__} has no {attr!r}",
            field=where,
            expected="one of its functions: " + (", ".join(found[:12]) or "none defined"),
        )
    if not callable(fn):
        raise CrsevalError(f"{module.__name__}.{attr} is not callable", field=where)
    return fn
