"""`lanes report` and `lanes compare`: the HTML report of a run or a scan, and the comparison of two."""
