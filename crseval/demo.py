"""The demo: the report card of the bundled example CRS (``crseval/data/sample/my_crs.py``, the same file as
``examples/my_crs.py``) at small size, plus every other capability on the bundled sample — one manifest of
(part, job, config) run through the public API like ``crseval evaluate-crs``, never a re-implementation.
Each part is a run directory of its own under the demo's (resumable, with its own report); the demo's
report is the card, then one section per other capability with its headline table and a link."""

from __future__ import annotations


from pydantic import BaseModel, ConfigDict, Field

from crseval.card.config import CardConfig
from crseval.core.job import JobSpec, Part
from crseval.core.output import Output
from crseval.data.bundled import sample_dir
from crseval.llm import LLMConfig
from crseval.runs.context import RunContext

N_BOOT = 200
CAPABILITIES = {  # part → (section title, the command that runs it on real data, its headline table)
    "validity": (
        "Simulator validity: the card's simulated users against the bundled human dialogues",
        "crseval shift validate",
        "shift_validity",
    ),
    "judge": (
        "LLM judge against the bundled raters' satisfaction",
        "crseval judge meta-eval",
        "meta_eval",
    ),
    "reliability": (
        "Reliability of the bundled crowd ratings",
        "crseval reliability",
        "reliability",
    ),
    "serendipity": (
        "Serendipity evaluators against the bundled user study",
        "crseval serendipity meta-eval",
        "serendipity_meta_eval",
    ),
    "arena": ("Arena rankings of simulated sample votes", "crseval arena", "arena_ratings"),
}


class DemoConfig(BaseModel):
    """The demo: the bundled example CRS's report card and every other capability, small, on the bundled
    sample and the embedded LLM."""

    model_config = ConfigDict(extra="forbid")
    llm: LLMConfig = LLMConfig()
    seed: int = Field(0, description="Seed of every step.", json_schema_extra={"signed": True})


def card(config: DemoConfig) -> CardConfig:
    """The card of the bundled example CRS, at demo size."""
    return CardConfig(
        target=str(sample_dir() / "my_crs.py"),
        sessions=12,
        turns=8,
        llm_sessions=2,
        llm_turns=3,
        llm_contexts=2,
        llm=config.llm,
        n_boot=N_BOOT,
        seed=config.seed,
    )


def capabilities(config: DemoConfig) -> list[Part]:
    """Every capability the card does not cover, each at small size on the bundled sample."""
    sample, llm, seed = sample_dir(), config.llm.model_dump(), config.seed
    return [
        Part("validity", "shift.validate", {"seed": seed}, needs=("shift",)),
        Part(
            "judge",
            "judge.meta-eval",
            {
                "data": "sample",
                "aspects": ["satisfaction"],
                "llm": llm,
                "n_boot": N_BOOT,
                "seed": seed,
            },
        ),
        Part(
            "reliability",
            "reliability",
            {
                "ratings": str(sample / "ratings.csv"),
                "item_col": "item",
                "rater_col": "rater",
                "n_boot": N_BOOT,
                "clusters": 2,
                "seed": seed,
            },
        ),
        Part(
            "serendipity",
            "serendipity.meta-eval",
            {
                "path": "sample",
                "evaluators": ["random", "sog", "snpr", "purs", "desr", "llm"],
                "llm": llm,
                "runs": 1,
                "sample": 12,
                "n_boot": N_BOOT,
                "seed": seed,
            },
        ),
        Part(
            "arena", "arena", {"votes": [str(sample / "votes.csv")], "n_boot": N_BOOT, "seed": seed}
        ),
    ]


def parts(config: DemoConfig) -> list[Part]:
    from crseval.card.config import parts as card_parts

    return [*card_parts(card(config)), *capabilities(config)]


def run(config: DemoConfig, ctx: RunContext) -> Output:
    """Run the demo into ``ctx`` (resuming what is already there): the card, then a section per other
    capability with its headline table."""
    from crseval.card.job import run_parts
    from crseval.card.scores import card_output

    done = run_parts(card(config), ctx)
    out = card_output(card(config), done)
    for name, (title, command, table) in CAPABILITIES.items():
        out.table(table, done.results[name].summary)
        out.section(
            title,
            f"At demo size on the bundled sample; `{command}` runs it on real data. Its own report, with "
            f"every table and figure: [{name}]({name}/report.html).",
            tables=[table],
        )
    return out


JOB = JobSpec(
    "demo",
    DemoConfig,
    run,
    "runs/demo",
    "The report card of the bundled example CRS and every other capability, small, on the bundled "
    "sample data and the embedded LLM; an interrupted demo resumes.",
    "crseval demo",
    uses_llm=lambda c: True,
    parts=parts,
)
