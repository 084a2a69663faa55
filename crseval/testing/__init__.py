"""Tools for testing a CRS setup, shipped so that tests, benchmarks and users share them: a local
OpenAI-compatible server that injects faults (:mod:`crseval.testing.fake_server`) and CRS plug-ins with
known behaviour — slow, hostile to a judge (:mod:`crseval.testing.crs`). Nothing here is used by a job."""
