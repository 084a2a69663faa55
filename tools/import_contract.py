"""crseval's import contract, derived from its declarations: import-linter's layers contract whose
layers are ``crseval/core/capability.py: LAYERS`` (the packages no capability owns) with every declared
capability added to the layer it declares — so adding a capability never edits ``pyproject.toml``, which
only names this contract type (``type = "declared_layers"``). ``lint-imports`` (``make lint``, CI) and
``tests/test_architecture.py`` run it from the project root."""

from __future__ import annotations

from importlinter.contracts.layers import LayersContract

from crseval.core.capability import LAYERS, all_capabilities


def declared_layers() -> list[str]:
    """The contract's layers, top to bottom, in import-linter's notation (``a | b``: independent)."""
    caps = all_capabilities().values()
    return [
        " | ".join((*fixed, *sorted(c.package for c in caps if c.layer == layer)))
        for layer, fixed in LAYERS.items()
    ]


class DeclaredLayers(LayersContract):
    """The layers contract, with its layers from :func:`declared_layers` instead of the config file."""

    def __init__(self, name, session_options, contract_options) -> None:
        super().__init__(name, session_options, {**contract_options, "layers": declared_layers()})
