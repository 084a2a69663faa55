"""Test support code: the in-process CLI runner and small helpers shared by several test modules."""
