#!/bin/sh
# The monitor figures of docs/benchmarks.md, from the repository root once bench_top_speed
# and bench_monitor are built: the machine's load before and after (quote it
# with the figures), the top speed with the monitor off and on in paired
# rounds that alternate which goes first (medians, least and most), and the
# per-call timing path repeated as many times (Google Benchmark's median and
# spread). ns per call = (jobOfModuleCalls/1 - jobOfModuleCalls/0) per item.
# Each SAMPLE N adds a monitored job that times one event in N
# (`lanes run --monitor-sample N`) to the paired rounds.
#   bench/monitor_cost.sh [EVENTS] [ROUNDS] [SAMPLE...]
set -eu
events=${1:-2000000}
rounds=${2:-7}
[ $# -ge 2 ] && shift 2 || shift $#
uptime
build/bin/bench_top_speed "$events" "$rounds" "$@"
build/bin/bench_monitor --benchmark_repetitions="$rounds" --benchmark_report_aggregates_only=true
uptime
