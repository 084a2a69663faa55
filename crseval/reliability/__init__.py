"""Reliability of judgments: ICC, crossed random-effects REML, Krippendorff's alpha, power, structure."""
