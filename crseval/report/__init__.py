"""Reports: self-contained HTML, paper-ready tables and figures."""

from crseval.report.html import write_report

__all__ = ["write_report"]
