"""Behavior alignment: recommendation strategies of a CRS compared with a human recommender's."""
