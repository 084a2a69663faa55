"""Studies with real people: ``crseval study serve | status | export | pilot`` (:mod:`crseval.study.server`)."""
