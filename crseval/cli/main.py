"""crseval — evaluate conversational recommender systems beyond accuracy.

Every command prints a result table (or json, csv, markdown, latex with --format) followed by its
reproducibility signature. Bad input ends with one line naming the file, line and field — no traceback.
"""

from __future__ import annotations

import os
import signal
import time
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional


import typer
from typer.core import TyperGroup

from crseval.cli.groups import group_app, groups
from crseval.card.criterion import JOB as CRITERION
from crseval.card.job import JOB as CARD
from crseval.cli.options import (
    BACKEND_HELP,
    BATCH_EXPORT,
    DRY_RUN,
    FORMAT,
    declared,
    job_command,
    llm_config,
    run_job,
)
from crseval.cli.output import Format, console, emit, err_console, show_result
from crseval.core.capability import all_capabilities
from crseval.core.cancel import Interrupted, cancel
from crseval.core.errors import CrsevalError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from crseval.core.job import JobSpec


class LazyGroups(TyperGroup):
    """The top-level commands, and a group per declared capability (built when it is used)."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return [*super().list_commands(ctx), *groups()]

    def get_command(self, ctx: typer.Context, name: str) -> Any:
        caps = all_capabilities()
        if name in caps:
            group = typer.main.get_group(group_app(caps[name]))
            group.name = name  # its name in usage lines and the generated CLI reference
            return group
        return super().get_command(ctx, name)

    def invoke(self, ctx: typer.Context):
        """Every failure ends in one line: bad input → the CrsevalError (exit 2), work that failed → its
        WorkFailed (exit 1); Ctrl-C/SIGTERM → resume hint
        (exit 130); anything unexpected → one line naming the file that holds the traceback (exit 1)."""
        try:
            return super().invoke(ctx)
        except (
            typer.Exit,
            typer.Abort,
            typer.TyperException,
        ):  # usage errors, --help, exits: typer's own
            raise
        except CrsevalError as e:  # bad input exits 2; work that failed (WorkFailed) exits 1
            from rich.markup import escape  # the message is text: "crseval[local]" is no markup tag

            err_console.print(
                f"[bold red]error:[/bold red] {escape(str(e))}", soft_wrap=True, highlight=False
            )
            raise typer.Exit(getattr(e, "exit_code", 2)) from None
        except BrokenPipeError:  # `crseval … | head`: the reader left; stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
        except (KeyboardInterrupt, Interrupted):
            cancel()
            err_console.print(
                "interrupted; completed records are kept — run the same command to resume",
                highlight=False,
            )
            raise typer.Exit(130) from None
        except Exception as e:  # a bug, not bad input: keep the traceback, print one line
            err_console.print(
                f"[bold red]unexpected error:[/bold red] {type(e).__name__}: {e} — the full "
                f"traceback is in {crash_report(e)}; please report it",
                soft_wrap=True,
                highlight=False,
            )
            raise typer.Exit(1) from None

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:
        helps = groups()
        rows = [
            (n, (self.commands[n].get_short_help_str(100) if n in self.commands else helps[n]))
            for n in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    cls=LazyGroups, help=__doc__, no_args_is_help=True, add_completion=False, rich_markup_mode=None
)
data_app = typer.Typer(
    help="Inspect datasets: counts, loader notes and a sample.", no_args_is_help=True
)
llm_app = typer.Typer(help="Talk to the configured LLM backend.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(llm_app, name="llm")


@app.callback(invoke_without_command=True)
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the crseval version and exit.", is_eager=True
    ),
) -> None:
    if version:
        from crseval.core.version import __version__

        console.print(f"crseval {__version__}")
        raise typer.Exit()


@app.command()
def demo(
    out: Optional[Path] = typer.Option(
        None,
        help="Run directory (an interrupted demo resumes here; default: runs/demo, or runs/demo-2, … "
        "where that holds a demo of another configuration).",
    ),
    backend: str = typer.Option("llamacpp", help=BACKEND_HELP),
    model: Optional[str] = typer.Option(
        None, help="Model name or .gguf path (default: the embedded Qwen2.5-Coder-1.5B)."
    ),
    base_url: Optional[str] = typer.Option(None, help="Server URL for --backend openai."),
    fresh: bool = typer.Option(False, help="Delete the run directory first instead of resuming."),
    fmt: Format = FORMAT,
    dry_run: bool = DRY_RUN,
    batch_export: Optional[Path] = BATCH_EXPORT,
) -> None:
    """The report card of the bundled example CRS and every other capability, small, on the bundled sample
    data and the embedded LLM; print the report path."""
    import shutil

    from crseval.demo import JOB, DemoConfig

    from crseval.api import run_directory

    config = DemoConfig(llm=llm_config(backend, model, base_url))
    if fresh and not dry_run and not batch_export:  # this configuration's folder only
        shutil.rmtree(out or run_directory(JOB, config), ignore_errors=True)
    run_job(JOB, config, out, fmt, dry_run=dry_run, batch_export=batch_export)


job_command(app, "evaluate-crs", CARD)
job_command(app, "criterion", CRITERION)


@app.command()
def rerun(
    run_dir: Path = typer.Argument(
        ..., help="A run directory written by crseval (its config.json)."
    ),
    out: Optional[Path] = typer.Option(
        None, help="Where the rerun goes (default: RUN_DIR-rerun; resumes there)."
    ),
    fmt: Format = FORMAT,
) -> None:
    """Run again what RUN_DIR/config.json records — same job, same validated config, same data (checked by
    fingerprint) — and say which tables differ from the original. Exit 1 when any does."""
    from crseval.api import rerun as rerun_run
    from crseval.cli.progress import progress_bars
    from crseval.runs.view import load_run, table_differences

    t0 = time.perf_counter()
    with progress_bars() as bars:
        result = rerun_run(run_dir, out, bars)
    show_result(result, fmt, seconds=time.perf_counter() - t0)
    diff = table_differences(load_run(run_dir), load_run(result.run_dir))
    for name, why in diff.items():
        err_console.print(f"table {name}: {why}", soft_wrap=True, highlight=False)
    if diff:
        raise typer.Exit(1)
    err_console.print(f"every table identical to {run_dir}", highlight=False)


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="A run directory written by crseval."),
    screenshot: Optional[Path] = typer.Option(
        None, help="Also save a full-page PNG (headless Chromium)."
    ),
    latex: bool = typer.Option(
        False,
        "--latex",
        help="Also write RUN_DIR/paper/: every table as booktabs LaTeX and "
        "every figure as PDF, with captions and labels, and a main.tex "
        "that compiles them in report order.",
    ),
) -> None:
    """(Re)write RUN_DIR/report.html from the run's tables, figures and records."""
    from crseval.report import write_report
    from crseval.runs.view import Run

    Run(run_dir)  # a missing folder, or a file, is refused here
    if not any((run_dir / p).exists() for p in ("signature.json", "config.json", "tables")):
        raise CrsevalError(
            "not a crseval run (no signature.json, config.json or tables/)",
            file=run_dir,
            fix="pass a folder a crseval command wrote with --out",
        )
    html = write_report(run_dir)
    console.print(f"report: [bold]{html}[/bold]")
    if latex:
        from crseval.report.paper import write_paper

        console.print(f"paper tables and figures: [bold]{write_paper(run_dir)}[/bold]")
    if screenshot is not None:
        from crseval.report.screenshot import screenshot as shoot

        console.print(f"screenshot: [bold]{shoot(html, screenshot)}[/bold]")


@app.command()
def compare(
    runs: list[Path] = typer.Argument(..., help="Two or more run directories."),
    table: Optional[str] = typer.Option(
        None,
        help="Result table to compare (default: the first registered table all runs share that holds "
        "numbers to test, per-item tables first).",
    ),
    metrics: Optional[str] = typer.Option(
        None,
        help="Comma-separated metric columns (default: every registered metric the runs share).",
    ),
    out: Optional[Path] = typer.Option(
        None, help="Folder for compare.md / compare.tex / compare.csv."
    ),
    systems: Optional[str] = typer.Option(
        None,
        help="The system of each run to compare, 'A,B' (two report cards: default each card's CRS; "
        "a table with several systems per run needs it).",
    ),
    fmt: Format = FORMAT,
) -> None:
    """Side-by-side table of shared metrics with significance tests (paired where items match, otherwise
    Welch; ANOVA + Tukey HSD for three or more runs), as Markdown and LaTeX; direction from the registry.
    Two report cards: every card metric of one system of each, paired on the cards' shared units."""
    from crseval.card.compare import compare_cards, is_card
    from crseval.report.compare import cards, compare as run_compare

    names = systems.split(",") if systems else None
    pair = names if names is None or len(names) == 2 else None
    if names is not None and pair is None and all(map(is_card, runs)):
        raise CrsevalError("--systems takes two names, 'A,B'", field="--systems")
    if len(runs) == 2 and table in (None, "card") and all(map(is_card, runs)):
        c = cards(*compare_cards(runs[0], runs[1], pair), runs)
    else:
        c = run_compare(runs, table, metrics.split(",") if metrics else None, systems=names)
    _show_comparison(c, out, fmt)


def _show_comparison(c, out: Path | None, fmt: Format) -> None:
    """A comparison written to ``out`` (Markdown, LaTeX, CSV) and shown in the format asked for, the
    metrics left out noted on stderr."""
    from crseval.report.compare import terminal, to_latex, to_markdown

    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.md").write_text(f"{to_markdown(c)}\n\n{c.signature}\n", encoding="utf-8")
        (out / "compare.tex").write_text(f"{to_latex(c)}\n% {c.signature}\n", encoding="utf-8")
        c.table.to_csv(out / "compare.csv", index=False)
    if fmt is Format.markdown:
        print(f"{to_markdown(c)}\n\n{c.signature}")
    elif fmt is Format.latex:
        print(f"{to_latex(c)}\n% {c.signature}")
    elif fmt is Format.table and c.difference:
        emit(terminal(c), fmt, title=f"compare on {c.table_name}", signature=c.signature)
    else:
        emit(
            c.table
            if fmt is not Format.json
            else {"signature": c.signature, "table": c.table_name, "result": c.table}
            | {"dropped": c.dropped},
            fmt,
            title=f"compare on {c.table_name}",
            signature=c.signature if fmt is not Format.json else None,
        )
    for note in c.dropped if fmt is not Format.json else []:
        err_console.print(
            f"[yellow]{'note' if c.difference else 'left out'}:[/yellow] {note}",
            soft_wrap=True,
            highlight=False,
        )


@app.command()
def metrics(fmt: Format = typer.Option(Format.table, "--format", help="Output format.")) -> None:
    """List the registered metrics: qualified name, column name, direction, scale, the tables that
    hold it, parameters, description."""
    import pandas as pd

    from crseval.core.glossary import metric_reference

    emit(
        pd.DataFrame(metric_reference()),
        fmt,
        title="registered metrics",
    )


@data_app.command("list")
def data_list(fmt: Format = typer.Option(Format.table, "--format", help="Output format.")) -> None:
    """List the dataset loaders and the path each expects."""
    import pandas as pd

    from crseval.data import DATASETS

    emit(
        pd.DataFrame(
            [
                {
                    "name": s.name,
                    "kind": s.kind,
                    "description": s.description,
                    "path (under ../shared/data)": s.default_path,
                    "source": s.source,
                }
                for s in DATASETS.values()
            ]
        ),
        fmt,
        title="datasets",
    )


@data_app.command("inspect")
def data_inspect(
    name: str = typer.Argument(..., help="Dataset name (see `crseval data list`)."),
    path: Optional[Path] = typer.Argument(
        None, help="File or folder of the dataset (not needed for 'sample')."
    ),
    fmt: Format = FORMAT,
    n: int = typer.Option(1, help="How many records to preview."),
) -> None:
    """Load a dataset and print its counts, what the loader repaired or filtered, and a sample."""
    from crseval.data import load_dataset

    ds = load_dataset(name, path)
    summary = ds.summary()
    notes = getattr(getattr(ds, "info", None), "notes", [])
    if fmt is Format.json:
        emit({"summary": summary, "notes": notes}, fmt)
        return
    emit(summary, fmt, title=f"{name}: summary")
    for note in notes:
        err_console.print(f"[yellow]note:[/yellow] {note}")
    if fmt is Format.table:
        console.print(ds.preview(n))


CHAT = {
    "prompt": (str, typer.Argument(..., help="The user message.")),
    "system": (Optional[str], typer.Option(None, help="Optional system message.")),
    "backend": (str, typer.Option("llamacpp", help=BACKEND_HELP)),
    "model": (Optional[str], typer.Option(None, help="Model name or .gguf path.")),
    "base_url": (Optional[str], typer.Option(None, help="Server URL for --backend openai.")),
    "config": (
        Optional[Path],
        typer.Option(None, help="TOML file with an LLM config (overrides the options)."),
    ),
    "temperature": (float, typer.Option(0.0, help="Sampling temperature.")),
    "max_tokens": (int, typer.Option(256, help="Most tokens to generate.")),
    "cache": (
        Path,
        typer.Option(Path("runs/llm_chat_cache.sqlite"), help="Response cache (SQLite)."),
    ),
    "rate": (
        bool,
        typer.Option(False, help="Ask for a 1–5 rating instead of text (probability-weighted)."),
    ),
    "fmt": (Format, FORMAT),
}


@llm_app.command("chat")
@declared(CHAT)
def llm_chat(**o: Any) -> None:
    """Send one prompt through the configured backend; show cache hit/miss, tokens and latency."""
    from crseval.llm import ChatRequest, make_client

    cfg = llm_config(o["backend"], o["model"], o["base_url"], o["temperature"], o["config"])
    client = make_client(cfg, o["cache"], role="chat")
    try:
        req = ChatRequest.chat(
            o["prompt"],
            system=o["system"],
            temperature=cfg.temperature,
            max_tokens=o["max_tokens"],
            seed=cfg.seed,
        )
        emit(client.ask(req, rate=o["rate"]), o["fmt"], title="llm chat")
    finally:
        client.close()


@llm_app.command("batch-import")
def llm_batch_import(
    output: Path = typer.Argument(
        ..., help="An OpenAI Batch output file (JSONL) answering a --batch-export file."
    ),
    run: Path = typer.Option(
        ..., help="The run directory the requests were exported from (--out of that command)."
    ),
) -> None:
    """Read a Batch output file into the run's LLM caches: the same command then makes no new call for what
    was answered. Exit 1 when a line failed (each is named; the rest is imported)."""
    from crseval.data.io import existing
    from crseval.llm.batch import import_answers

    done = import_answers(existing(output, "batch output file"), existing(run, "run directory"))
    console.print(f"imported {done.answers} answer(s) into {run}", highlight=False)
    for line in done.errors:
        err_console.print(line, soft_wrap=True, highlight=False)
    if done.errors:
        raise typer.Exit(1)


def crash_report(e: BaseException) -> Path:
    """Write the traceback of an unexpected exception to $CRSEVAL_HOME/logs and return the file."""
    import time
    import traceback

    from crseval.core.home import home_dir

    path = home_dir("logs") / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    path.write_text("".join(traceback.format_exception(e)), encoding="utf-8")
    return path


def _stop(signum: int, frame) -> None:
    """SIGINT and SIGTERM: stop the work in every thread now, then unwind the main thread."""
    cancel()
    raise KeyboardInterrupt


def parse_command(argv: list[str]) -> tuple[JobSpec, BaseModel]:
    """The job and validated config that ``crseval ARGV…`` runs, parsed by the CLI itself and not run (the
    validity gate runs exactly the command it prints). A command that is not a job's (``data list``) runs as
    typed and is then refused."""
    from crseval.cli.options import collecting_jobs

    with collecting_jobs() as parsed:
        app(list(argv), prog_name="crseval", standalone_mode=False)
    if len(parsed) != 1:
        raise CrsevalError(f"`crseval {' '.join(argv)}` runs no job", fix="name a job's command")
    return parsed[0]


def main() -> None:
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    app()


if __name__ == "__main__":
    main()
