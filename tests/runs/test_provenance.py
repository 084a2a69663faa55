"""config.json records what determines a run; the signature's identity is a function of it, so changing any
config field of any job, or the content of a file it names, changes the signature."""

import enum
import json
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

import crseval
from crseval.api import JOBS, get_job
from crseval.core.errors import CrsevalError
from crseval.runs.provenance import identity, invocation_fields, provenance

RATINGS = "item,rater,q\n" + "".join(
    f"i{i},r{r},{1 + (i * r) % 5}\n" for i in range(10) for r in range(3)
)


def _types(annotation) -> list:
    """The concrete types an annotation allows (Optional/Union/Annotated unwrapped)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for a in typing.get_args(annotation) for t in _types(a)]
    return [annotation]


def _other(value, annotation):
    """A value of the field's type that differs from ``value``."""
    for t in _types(annotation):
        origin = typing.get_origin(t) or t
        if origin is typing.Literal:
            options = [o for o in typing.get_args(t) if o != value]
            if options:
                return options[0]
        elif isinstance(origin, type) and issubclass(origin, enum.Enum):
            return next(m for m in origin if m != value)
        elif origin is bool:
            return not value
        elif origin in (int, float):
            return (value or 0) + 1
        elif origin in (str, Path):
            return origin(f"{value or ''}x")
        elif origin in (list, tuple):
            return [*(value or []), *(value[:1] if value else ["x"])]
        elif origin is dict:
            return {**(value or {}), "x": 1}
        elif isinstance(origin, type) and issubclass(origin, BaseModel):
            return None if value is not None else _example(origin)
    return "x" if value is None else None


def _example(model: type[BaseModel]) -> BaseModel:
    """An instance with every default and a placeholder for every required field (no validation: the
    property is about what provenance records, not about the values being usable)."""
    required = {
        n: _other(None, f.annotation) for n, f in model.model_fields.items() if f.is_required()
    }
    return model.model_construct(**required)


def _leaves(config: BaseModel, prefix: str = ""):
    """(path, model, field name) for every field, nested models included."""
    for name, field in type(config).model_fields.items():
        value = getattr(config, name)
        yield f"{prefix}{name}", config, name, field
        if isinstance(value, BaseModel):
            yield from _leaves(value, f"{prefix}{name}.")


def _with(config: BaseModel, path: str, value) -> BaseModel:
    head, _, rest = path.partition(".")
    if rest:
        return config.model_copy(update={head: _with(getattr(config, head), rest, value)})
    return config.model_copy(update={head: value})


@pytest.mark.filterwarnings(
    "ignore::UserWarning"
)  # serialising placeholders of the wrong type warns
@pytest.mark.parametrize("job", sorted(JOBS))
def test_every_config_field_of_every_job_changes_the_signature(job):
    config = _example(get_job(job).config)
    base = identity(provenance(job, config))["config"]
    leaves = list(_leaves(config))
    assert leaves, f"{job} has no config fields"
    for path, owner, name, field in leaves:
        changed = _with(config, path, _other(getattr(owner, name), field.annotation))
        steers = name in invocation_fields(owner)  # --retry-failed: this invocation, not the run
        assert (identity(provenance(job, changed))["config"] != base) != steers, (
            f"{job}: changing {path} " + ("changed" if steers else "left") + " the signature"
        )


def test_the_content_of_a_named_file_is_part_of_the_signature(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text(RATINGS)
    config = get_job("reliability").config(ratings=f, item_col="item", rater_col="rater")
    first = provenance("reliability", config)
    assert first["data"] == {"ratings": f"r.csv@{first['data']['ratings'].split('@')[1]}"}
    f.write_text(RATINGS.replace(",1\n", ",2\n"))
    assert identity(provenance("reliability", config))["config"] != identity(first)["config"]


def _reliability(tmp_path, out: str, **fields):
    f = tmp_path / "r.csv"
    if not f.exists():
        f.write_text(RATINGS)
    return crseval.evaluate(
        "reliability", ratings=f, item_col="item", rater_col="rater", out=tmp_path / out, **fields
    )


def test_a_run_writes_config_json_and_its_signature_derives_from_it(tmp_path):
    res = _reliability(tmp_path, "run", n_boot=20)
    record = json.loads((tmp_path / "run" / "config.json").read_text())
    assert record["job"] == "reliability" and record["config"]["n_boot"] == 20
    assert record["config"]["seed"] == 0  # defaults resolved
    assert {"crseval", "git", "python", "numpy", "scipy"} <= set(record["versions"])
    assert res.signature["config"] == identity(record)["config"]
    assert (
        json.loads((tmp_path / "run" / "signature.json").read_text())["config"]
        == res.signature["config"]
    )


def test_resuming_with_another_config_or_changed_data_is_refused(tmp_path):
    _reliability(tmp_path, "run", n_boot=0)
    _reliability(tmp_path, "run", n_boot=0)  # the same: resumes
    with pytest.raises(CrsevalError, match="different configuration"):
        _reliability(tmp_path, "run", n_boot=5)
    (tmp_path / "r.csv").write_text(RATINGS.replace(",1\n", ",3\n"))
    with pytest.raises(CrsevalError, match="different input data"):
        _reliability(tmp_path, "run", n_boot=0)


def test_rerun_reproduces_a_seeded_run_from_its_config_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("r.csv").write_text(
        RATINGS
    )  # a relative path: rerun reads it from the first run's directory
    crseval.evaluate(
        "reliability",
        ratings="r.csv",
        item_col="item",
        rater_col="rater",
        n_boot=50,
        seed=3,
        out="run",
    )
    monkeypatch.chdir(tmp_path.parent)
    res = crseval.rerun(tmp_path / "run")
    assert res.run_dir == tmp_path / "run-rerun"
    for table in (tmp_path / "run" / "tables").glob("*.csv"):
        assert (
            tmp_path / "run-rerun" / "tables" / table.name
        ).read_bytes() == table.read_bytes(), table.name
    with pytest.raises(CrsevalError, match="new directory"):
        crseval.rerun(tmp_path / "run", out=tmp_path / "run")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "config.json").write_text('{"seed": 1}')
    with pytest.raises(CrsevalError, match="does not record a job"):
        crseval.rerun(tmp_path / "old")


def test_a_fixed_choice_is_never_read_as_a_path(tmp_path, monkeypatch):
    """`definition = "crseval"` is a choice, not the `crseval/` folder beside the working directory,
    whose bytecode caches change while a run goes on (a resume was refused as "changed input data")."""

    class Config(BaseModel):
        definition: typing.Literal["crseval", "thesis"] = "crseval"
        maybe: typing.Literal["crseval", "thesis"] | None = "thesis"
        data: str = "crseval"

    monkeypatch.chdir(tmp_path)
    for name in ("crseval", "thesis"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.txt").write_text(name)
    assert set(provenance("t", Config())["data"]) == {"data"}  # a str field may name a path
