"""lanes scan: the grid, the runner, the table and the plots of tools/scan.py."""
