"""The ``crseval`` command line (typer + rich)."""
