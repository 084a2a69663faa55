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
from crseval.simulation.crs import CRSReply, History
from crseval.simulation.targets import GIVEN


class CallableCRS:
    """Wraps ``fn(history) -> str | {"text": …, "constraints": {…}}`` (your own system)."""

    def __init__(self, name: str, fn: Callable[[History], Any]) -> None:
        self.name, self.fn = name, fn

    def respond(self, history: History) -> CRSReply:
        try:
            out = self.fn([dict(h) for h in history])
        except (
            Exception
        ) as e:  # a user's system failing is a recorded result, not a crash of the run
            return CRSReply("", error=f"{type(e).__name__}: {e}")
        return _reply_from(out, self.name)


class HttpCRS:
    """A CRS behind an HTTP endpoint: POST ``{"history": [...]}`` → ``{"text": …, "constraints": …}``
    (``reply`` is accepted for ``text``). Bounded retries on connection errors and 5xx."""

    def __init__(self, name: str, url: str, timeout_s: float = 60.0, retries: int = 2) -> None:
        self.name, self.url, self.timeout_s, self.retries = name, url, timeout_s, retries

    def respond(self, history: History) -> CRSReply:
        import httpx

        error = "no attempt"
        for _ in range(self.retries + 1):
            try:
                r = httpx.post(self.url, json={"history": history}, timeout=self.timeout_s)
                if r.status_code >= 500:
                    error = f"HTTP {r.status_code}"
                    continue
                r.raise_for_status()
                return _reply_from(r.json(), self.name)
            except (httpx.HTTPError, ValueError) as e:
                error = f"{type(e).__name__}: {e}"
        return CRSReply("", error=error)


def _reply_from(out: Any, name: str) -> CRSReply:
    if isinstance(out, str):
        return CRSReply(out)
    if isinstance(out, dict) and isinstance(out.get("text", out.get("reply")), str):
        cons = out.get("constraints")
        return CRSReply(out.get("text", out.get("reply")), cons if isinstance(cons, dict) else None)
    return CRSReply(
        "",
        error=f"CRS {name!r} returned {type(out).__name__}, expected a string or "
        "{'text': ..., 'constraints': {...}}",
    )


def load_callable(target: str, folder: str | Path | None = None) -> Callable[[History], Any]:
    """``package.module:function`` → the function; ``folder`` (the config file's folder) is searched first,
    so a ``my_crs.py`` beside the config works without touching PYTHONPATH."""
    if target in GIVEN:  # a function handed over from Python
        return GIVEN[target]
    mod, _, attr = target.partition(":")
    if not mod or not attr:
        raise CrsevalError(
            f"bad callable {target!r}", field="models.target", expected="'package.module:function'"
        )
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        fn = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as e:
        raise CrsevalError(
            f"cannot import {target!r}: {e}",
            field="models.target",
            fix=f"put {mod.replace('.', '/')}.py beside the config"
            f"{f' ({folder})' if folder else ''} or make it importable",
        ) from None
    finally:
        if added:
            sys.path.remove(str(folder))
    if not callable(fn):
        raise CrsevalError(f"{target!r} is not callable", field="models.target")
    return fn
