"""lanes scan: the grid, the runner, the table and the plots of lanes.tools.scan."""
