#!/bin/sh
# How long `lanes model` takes to predict 256 threads x 100,000 events
# (docs/model.md#speed), from the repository root once `lanes` is built:
# each menu run on 2 threads for its report, then ROUNDS predictions of it,
# each printing the simulation's own seconds; the machine's load before and
# after (quote it with the figures).
#   bench/model_speed.sh [ROUNDS]
set -eu
rounds=${1:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
lscpu | grep 'Model name' || true
uptime
build/bin/lanes run --menu examples/reconstruction.toml -t 2 -n 100 --report "$scratch/reconstruction.json" >/dev/null
build/bin/lanes run --menu examples/hlt-like.toml -t 2 -n 100 --accel emulated --accel-strategy waiting-pool \
  --report "$scratch/hlt-like.json" >/dev/null
build/bin/lanes run -t 2 -n 200 --report "$scratch/nanoaod.json" >/dev/null  # the default job: 947 waiters
for menu in reconstruction hlt-like nanoaod; do
  for round in $(seq "$rounds"); do
    printf '%s, round %s: ' "$menu" "$round"
    build/bin/lanes model "$scratch/$menu.json" -t 256 -n 100000 | grep 'simulated in'
  done
done
uptime
