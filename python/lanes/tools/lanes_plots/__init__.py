"""Plots drawn from the files `lanes run` writes (its trace and report JSON)."""
