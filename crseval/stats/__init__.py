"""Statistics shared by the capabilities (bootstrap CIs, agreement, tests)."""
