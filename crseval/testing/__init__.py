"""Tools for testing a CRS setup, shipped so that tests, benchmarks and users share them: a local
OpenAI-compatible server that injects faults (:mod:`crseval.testing.fake_server`) and CRS plug-ins with
known behaviour — slow, hostile to a judge (:mod:`crseval.testing.crs`) — and a model-less engine for the
embedded backend's worker (:mod:`crseval.testing.echo_engine`). Nothing here is used by a job."""
