"""TOML configs validated by pydantic; a bad value becomes a CrsevalError naming the key and the
allowed values, never a pydantic traceback."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ValidationError

from crseval.core.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


def split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


CommaList = Annotated[list[str], BeforeValidator(split_commas)]
"""A list of names that a CLI flag or TOML value may also give as one comma-separated string."""


def validate(model: type[M], data: dict[str, Any], *, file: str | Path | None = None) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        # an unknown key first: a typo ("vots") also leaves its field missing, which would hide it
        err = next((x for x in e.errors() if x["type"] == "extra_forbidden"), e.errors()[0])
        # an empty key: a rule across fields (a model validator), named by its message alone
        key = ".".join(str(x) for x in err["loc"])
        ctx = err.get("ctx") or {}
        expected = ctx.get("expected")
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, err["loc"][:-1])
            raise ConfigError(
                f"unknown key {key!r}",
                file=file,
                field=key,
                expected="one of " + ", ".join(allowed) if allowed else None,
                fix="API keys never go in a config: set the environment variable named by api_key_env"
                if "key" in key.lower()
                else None,
            ) from None
        field = model.model_fields.get(str(err["loc"][0])) if len(err["loc"]) == 1 else None
        if err.get("input") is None and field is not None and field.is_required():
            # a required option the command line left out (TOML has no null: only the CLI gives None)
            what = (field.description or "see --help").rstrip(".")
            raise ConfigError(
                "required, not given",
                file=file,
                field=key,
                fix=f"pass --{key.replace('_', '-')}: {what}",
            ) from None
        got = f" (got {err.get('input')!r})" if key else ""  # not the whole config again
        raise ConfigError(
            f"{err['msg'].removeprefix('Value error, ')}{got}",
            file=file,
            field=key or None,
            expected=str(expected) if expected else None,
        ) from None


def _allowed_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    for part in loc:
        field = model.model_fields.get(str(part))
        ann = getattr(field, "annotation", None) if field else None
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
        else:
            return []
    return list(model.model_fields)


def load_config(path: str | Path, model: type[M]) -> M:
    p = Path(path)
    if p.is_dir():
        raise ConfigError("is a folder, not a TOML file", file=p, fix="pass the config file itself")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("config file not found", file=p) from None
    except UnicodeDecodeError:
        raise ConfigError("config is not UTF-8 text", file=p) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise ConfigError(
            f"invalid TOML: {e}", file=p, line=int(m.group(1)) if m else None
        ) from None
    return validate(model, data, file=p)
