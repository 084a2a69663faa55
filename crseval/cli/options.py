"""What every command shares: the LLM options, the output format, and commands built from a job's config.

A job's config (a pydantic model, declared once) becomes the command's options: each field is an option
named after it (``n_boot`` → ``--n-boot``) with its default and its description as help; a field marked
``json_schema_extra={"argument": True}`` is a positional argument; an ``LLMConfig`` field becomes
``--backend``, ``--model``, ``--base-url`` and ``--llm-config FILE.toml``. The command validates the
values against the model (a bad value is a one-line error naming the option), runs the job and prints
its result. Nothing about a job's options is written twice.
"""

from __future__ import annotations

import inspect
import time
import types
import typing
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import typer
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from crseval.cli.output import Format, show_result
from crseval.core.job import JobSpec
from crseval.llm import LLMConfig

BACKEND_HELP = (
    "llamacpp (embedded model), openai (any OpenAI-compatible server) or scripted (deterministic)"
)
FORMAT = typer.Option(
    Format.table, "--format", help="Output format: table, json, csv, markdown or latex."
)
KEEP_GOING = typer.Option(
    False,
    "--keep-going",
    help="Exit 0 even when some work failed (a CRS or plug-in that "
    "crashed); the failures stay recorded and reported.",
)
DRY_RUN = typer.Option(
    False,
    "--dry-run",
    help="Print the planned LLM calls (and how many are cached) and the "
    "time they would take; call nothing, write nothing.",
)
BATCH_EXPORT = typer.Option(
    None,
    "--batch-export",
    help="Write the LLM requests the run still needs as an OpenAI Batch file (JSONL) and call nothing; "
    "answer it elsewhere, then `crseval llm batch-import OUTPUT --run RUN_DIR` (export again for the "
    "next round until nothing is left).",
)


def llm_config(
    backend: str = "llamacpp",
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    temperature: float = 0.0,
    config: Optional[Path] = None,
) -> LLMConfig:
    """An LLM config from a TOML file (``config``) or from the common flags."""
    from crseval.core.config import load_config, validate

    if config is not None:
        return load_config(config, LLMConfig)
    values: dict[str, Any] = {"backend": backend, "model": model, "temperature": temperature}
    if base_url:
        values["base_url"] = base_url
    return validate(LLMConfig, values)


def _llm_params() -> list[inspect.Parameter]:
    opts = {
        "backend": (str, typer.Option("llamacpp", help=BACKEND_HELP)),
        "model": (
            Optional[str],
            typer.Option(
                None, help="Model name or .gguf path (default: the embedded Qwen2.5-Coder-1.5B)."
            ),
        ),
        "base_url": (Optional[str], typer.Option(None, help="Server URL for --backend openai.")),
        "llm_config": (
            Optional[Path],
            typer.Option(
                None, help="TOML file with an LLM config (overrides --backend/--model/--base-url)."
            ),
        ),
    }
    return _params(opts)


def _params(options: dict[str, tuple[Any, Any]]) -> list[inspect.Parameter]:
    """name → (type, typer.Option or typer.Argument) as a command's keyword-only parameters."""
    return [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d, annotation=a)
        for n, (a, d) in options.items()
    ]


def declared(options: dict[str, tuple[Any, Any]]) -> Callable:
    """A hand-written command whose options are declared as data (name → (type, typer.Option)), as a job
    command's come from its config: the decorated ``fn(**values)`` gets them as its typer signature."""

    def wrap(fn: Callable) -> Callable:
        params = _params(options)
        fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        fn.__annotations__ = {p.name: p.annotation for p in params}
        return fn

    return wrap


def _cli_type(annotation: Any) -> Any:
    """The type typer shows for a field: Optional kept, comma lists as one string."""
    args = typing.get_args(annotation)
    optional = (typing.get_origin(annotation) in (typing.Union, types.UnionType)) and type(
        None
    ) in args
    inner = next((a for a in args if a is not type(None)), annotation) if optional else annotation
    if typing.get_origin(inner) is typing.Annotated:
        inner = typing.get_args(inner)[0]
    if typing.get_origin(inner) is list:
        inner = str
    return Optional[inner] if optional else inner


def _is_list(annotation: Any) -> bool:
    inner = (
        typing.get_args(annotation)[0]
        if typing.get_origin(annotation) is typing.Annotated
        else annotation
    )
    return typing.get_origin(inner) is list


def _field_param(name: str, field: Any) -> inspect.Parameter:
    extra = field.json_schema_extra or {}
    default = None if field.default is PydanticUndefined else field.default
    if field.default is PydanticUndefined and field.default_factory is not None:
        default = field.default_factory()
    if isinstance(default, list):
        default = ",".join(map(str, default))
    help_ = field.description or ""
    if extra.get("argument"):
        # a positional argument without a default to stand for it is one the command needs (a card's
        # part may be handed its input in memory instead: dialogues metrics' data)
        needed = field.is_required() or default in ("", None)
        info = typer.Argument(... if needed else default, help=help_, show_default=False)
        if _is_list(
            field.annotation
        ):  # a list argument takes one or more values: `crseval arena a.csv b.csv`
            return inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=list[str]
            )
    else:
        flag = f"--{name.replace('_', '-')}"
        if field.annotation is bool and default is True:  # a switch that is on: `--x/--no-x`
            flag += f"/--no-{name.replace('_', '-')}"
        info = typer.Option(default, flag, help=help_)
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=_cli_type(field.annotation)
    )


def default_command_group(default: str) -> type:
    """A command group whose first argument, when it is not a subcommand, goes to ``default``
    (`crseval reliability RATINGS …` runs `analyze`, `crseval arena VOTES…` runs `rank`)."""
    from typer.core import TyperGroup

    class DefaultGroup(TyperGroup):
        default_command = default

        def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
            if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
                args = [default, *args]
            return super().parse_args(ctx, args)

    return DefaultGroup


def job_command(app: typer.Typer, name: str, job: JobSpec, *, hidden: bool = False) -> None:
    """Add ``name`` to ``app``: options from ``job.config``, then validate → run → print."""
    params, llm_fields = [], []
    for fname, field in job.config.model_fields.items():
        if field.annotation is LLMConfig or LLMConfig in typing.get_args(field.annotation):
            llm_fields.append(fname)
            continue
        params.append(_field_param(fname, field))
    if llm_fields:
        params += _llm_params()
    params += [
        inspect.Parameter(
            "out",
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Optional[Path],
            default=typer.Option(None, help=f"Run directory (default: {job.out_help})"),
        ),
        inspect.Parameter("fmt", inspect.Parameter.KEYWORD_ONLY, annotation=Format, default=FORMAT),
    ]
    if job.uses_llm is not None:
        params.append(
            inspect.Parameter(
                "dry_run", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=DRY_RUN
            )
        )
        params.append(
            inspect.Parameter(
                "batch_export",
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Optional[Path],
                default=BATCH_EXPORT,
            )
        )
    if job.can_fail:
        params.append(
            inspect.Parameter(
                "keep_going", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=KEEP_GOING
            )
        )

    def command(**kw: Any) -> None:
        fmt, out, dry_run = kw.pop("fmt"), kw.pop("out"), kw.pop("dry_run", False)
        keep_going, batch = kw.pop("keep_going", False), kw.pop("batch_export", None)
        if llm_fields:
            llm = llm_config(
                kw.pop("backend"), kw.pop("model"), kw.pop("base_url"), config=kw.pop("llm_config")
            )
            kw.update({f: llm for f in llm_fields})
        run_job(job, kw, out, fmt, dry_run=dry_run, keep_going=keep_going, batch_export=batch)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = job.help
    app.command(name, hidden=hidden)(command)


def _note_went_beside(job: JobSpec, config: BaseModel, out: Path, default: Path | None) -> None:
    """Say so when a run without --out went beside its default folder, which holds another configuration's
    run — once the run has read its input (a refused input says only why)."""
    from crseval.cli.output import err_console

    default = default or job.default_out(config)
    if out != default:
        err_console.print(
            f"{default} holds a run of another configuration: this one is in {out}",
            soft_wrap=True,
            highlight=False,
        )


# crseval.cli.main.parse_command: the (job, config) a command line would run, collected instead of run
_PARSED: ContextVar[list | None] = ContextVar("crseval_parsed", default=None)


@contextmanager
def collecting_jobs() -> Iterator[list]:
    """Inside it, a job's command appends its (job, config) to the list it yields instead of running."""
    parsed: list = []
    token = _PARSED.set(parsed)
    try:
        yield parsed
    finally:
        _PARSED.reset(token)


def run_job(
    job: JobSpec,
    values: dict[str, Any] | BaseModel,
    out: Path | None,
    fmt: Format,
    *,
    dry_run: bool = False,
    keep_going: bool = False,
    batch_export: Path | None = None,
    default: Path | None = None,
) -> None:
    """Validate the values; when the job calls an LLM, print its plan (calls, cached, time) first — and only
    that with ``dry_run``; run the job into its run directory (``out``; else ``default`` or the job's
    default folder, or the numbered one beside it that holds this configuration's run or none) with
    progress bars; print the result (the report is written by :func:`crseval.api.execute`)."""
    from crseval.api import execute, plan, run_directory
    from crseval.cli.output import err_console
    from crseval.cli.progress import progress_bars
    from crseval.core.config import validate

    config = values if isinstance(values, BaseModel) else validate(job.config, values)
    if job.check is not None:
        job.check(config)
    if (parsed := _PARSED.get()) is not None:  # parse_command: what would run, not run
        parsed.append((job, config))
        return
    where = out or run_directory(job, config, default)
    if batch_export is not None:
        from crseval.api import batch_export as export

        with err_console.status("writing the requests the run can ask now…"):
            made = export(job, config, batch_export, where)
        err_console.print(made.line(), soft_wrap=True, highlight=False)
        return
    if job.uses_llm is not None and job.uses_llm(config):
        with err_console.status(
            "planning the LLM calls (the job runs once with stand-in answers)…"
        ):
            made = plan(job, config, where)
        err_console.print(made.line(), soft_wrap=True, highlight=False)
    elif dry_run:
        err_console.print("plan: no LLM calls", highlight=False)
    if dry_run:
        return
    t0 = time.perf_counter()
    with progress_bars() as bars:
        result = execute(job, config, where, bars)
    show_result(result, fmt, seconds=time.perf_counter() - t0)
    if out is None:
        _note_went_beside(job, config, where, default)
    if result.failures:
        _say_failures(result.failures, config, keep_going)


def _say_failures(failures: str, config: BaseModel, keep_going: bool) -> None:
    """What failed, in one line naming the way on (``--retry-failed`` after a fix); exit 1 unless
    ``--keep-going``."""
    from crseval.cli.output import err_console

    retry = (
        "; fix your CRS, then the same command with --retry-failed runs the failed work again"
        if "retry_failed" in type(config).model_fields and not config.retry_failed
        else ""
    )
    err_console.print(
        f"[bold red]failed:[/bold red] {failures}{retry}"
        + ("" if keep_going else " — exit 1 (--keep-going accepts failures)"),
        soft_wrap=True,
        highlight=False,
    )
    if not keep_going:
        raise typer.Exit(1)
