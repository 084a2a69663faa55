"""The study capability, declared once: `crseval study serve | status | export | pilot`."""

from crseval.core.capability import declare_capability

declare_capability(
    "study",
    package="crseval.study",
    help="Run a study of your CRS with real people: a web server for participants (chat, questionnaire, "
    "pairwise vote; or rating existing dialogues), its status, and an export every crseval analysis reads. "
    "`crseval study serve STUDY.toml`.",
    cli="crseval.cli.study",
)
