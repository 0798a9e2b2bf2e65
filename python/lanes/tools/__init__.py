"""The tools behind `lanes scan`, `lanes report` and `lanes compare` (each runnable as `python -m lanes.tools.NAME`),
and the checks and studies around them: product-size profiles, the serialisation table, basket checks, the
damaged-file sweep, the guide's screenshots."""
