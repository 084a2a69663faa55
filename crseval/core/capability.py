"""A capability is one declaration (at the top of its room's ``metrics.py``): its name — which also
qualifies its metrics (``arena.pearson``) —, package, import-linter layer, CLI group with its help, and
jobs with the CLI command each gets. ``crseval.api.JOBS``, the CLI's command groups
(``crseval/cli/groups.py``), ``crseval metrics`` and the import contract (``tools/import_contract.py``)
are derived from the declarations; ``docs/ARCHITECTURE.md`` is checked against them by
``tests/test_architecture_doc.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from crseval.core.errors import CrsevalError

# the import-linter layers, top to bottom, with the packages no capability owns; each capability joins
# the layer it declares (tools/import_contract.py derives the contract lint-imports checks from both)
LAYERS: dict[str, tuple[str, ...]] = {
    "interface": ("crseval.cli",),
    "demo": ("crseval.demo",),  # the card's manifest on the example CRS + the other capabilities
    "manifests": ("crseval.card",),  # jobs built from other jobs, run through the verbs
    "verbs": ("crseval.api",),
    "report": ("crseval.report",),
    "capabilities": (),
    "judges": (),
    "measurement": ("crseval.simulation",),
    "tools": ("crseval.text", "crseval.stats", "crseval.plotting"),
    "resources": (
        "crseval.data",
        "crseval.llm",
        "crseval.validated",
        "crseval.runs",
        "crseval.testing",
    ),
    "core": ("crseval.core",),
}


class Job(NamedTuple):
    target: str  # "module:ATTRIBUTE" of its JobSpec (imported only when the job is run)
    command: str | None  # its CLI command in the group; None: the group's cli module writes it


@dataclass(frozen=True)
class Capability:
    name: str  # the CLI group and the qualifier of its metrics
    package: str
    help: str
    layer: str
    jobs: dict[str, Job] = field(default_factory=dict)  # job name (recorded in config.json) → job
    default: str | None = None  # the command run when the group's first argument is not one
    cli: str | None = None  # a module whose ``extend(app)`` adds hand-written commands
    # modules that declare metrics beside the code computing them (imported with the declarations)
    declared_in: tuple[str, ...] = ()


CAPABILITIES: dict[str, Capability] = {}


def declare_capability(
    name: str,
    *,
    package: str,
    help: str,
    layer: str = "capabilities",
    jobs: dict[str, tuple[str, str | None]] | None = None,
    default: str | None = None,
    cli: str | None = None,
    declared_in: tuple[str, ...] = (),
) -> Capability:
    if layer not in LAYERS:
        raise CrsevalError(f"unknown layer {layer!r}", expected="one of " + ", ".join(LAYERS))
    cap = Capability(
        name,
        package,
        help,
        layer,
        {job: Job(*spec) for job, spec in (jobs or {}).items()},
        default,
        cli,
        tuple(declared_in),
    )
    if name in CAPABILITIES and CAPABILITIES[name] != cap:
        raise CrsevalError(f"capability {name!r} declared twice with different declarations")
    CAPABILITIES[name] = cap
    return cap


@lru_cache(maxsize=1)
def declaring_modules() -> tuple[str, ...]:
    """Every ``crseval.<package>.metrics`` module: each declares metrics and tables, and a room's
    also declares its capability (found by where the file is, so nothing lists them)."""
    root = Path(__file__).resolve().parents[1]
    return tuple(sorted(f"crseval.{p.parent.name}.metrics" for p in root.glob("*/metrics.py")))


def all_capabilities() -> dict[str, Capability]:
    """Every declared capability, after importing the modules that declare them (the rooms'
    ``metrics.py``: light, so building the CLI imports no computing module)."""
    import importlib

    for module in declaring_modules():
        importlib.import_module(module)
    return dict(CAPABILITIES)
