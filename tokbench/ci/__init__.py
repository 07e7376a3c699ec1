"""Regression gates: comparing runs, the history of runs, verifying that a run reproduces."""
