"""Metrics registered by name (the ir-measures idea: meaning declared once, found by name).

A metric declares its NAME, its parameters with defaults, a one-line description and whether higher
is better; the CLI, configs and reports look metrics up here instead of keeping import lists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from crseval.core.errors import CrsevalError


@dataclass(frozen=True)
class MetricSpec:
    name: str
    fn: Callable[..., Any]
    description: str
    higher_is_better: bool = True
    params: dict[str, Any] = field(default_factory=dict)
    capability: str = "general"

    def signature(self, **overrides: Any) -> str:
        params = {**self.params, **overrides}
        inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
        return f"{self.name}({inner})"


METRICS: dict[str, MetricSpec] = {}


def register_metric(name: str, description: str, *, higher_is_better: bool = True,
                    capability: str = "general", **params: Any) -> Callable:
    """Decorator: ``@register_metric("icc1", "…", higher_is_better=True, k=None)``."""

    def wrap(fn: Callable) -> Callable:
        if name in METRICS and METRICS[name].fn is not fn:
            raise CrsevalError(f"metric {name!r} registered twice")
        METRICS[name] = MetricSpec(name, fn, description, higher_is_better, dict(params), capability)
        return fn

    return wrap


CAPABILITY_MODULES = ("crseval.adaptation.tas", "crseval.reliability.icc", "crseval.reliability.crossed", "crseval.reliability.alpha",
                      "crseval.behavior.explicit", "crseval.behavior.implicit", "crseval.behavior.generation",
                      "crseval.serendipity.proxies")


def all_metrics() -> dict[str, MetricSpec]:
    """Every registered metric, after importing the modules that register them."""
    import importlib
    for module in CAPABILITY_MODULES:
        importlib.import_module(module)
    return dict(sorted(METRICS.items()))


def get_metric(name: str) -> MetricSpec:
    if name not in METRICS:
        all_metrics()
    if name not in METRICS:
        raise CrsevalError(f"unknown metric {name!r}", field="metric",
                           expected="one of " + ", ".join(sorted(METRICS)) if METRICS else "a registered metric")
    return METRICS[name]
