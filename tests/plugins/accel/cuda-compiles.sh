#!/usr/bin/env bash
# Compiles the CUDA backend (plugins/accel/*.cu) without linking or
# running it, so that it cannot rot on machines with no CUDA toolkit and no
# GPU. The compiler is $LANES_NVCC, else the project venv's nvcc (the
# nvidia-cuda-nvcc wheel of requirements.txt). Exits 77 (skipped) when
# there is none.
#   usage: cuda-compiles.sh SOURCE_DIR OUTPUT_DIR
set -euo pipefail
source_dir=$1
output_dir=$2

nvcc=${LANES_NVCC:-}
if [ -z "$nvcc" ]; then
  for candidate in "$source_dir"/.venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc; do
    [ -x "$candidate" ] && nvcc=$candidate
  done
fi
if [ -z "$nvcc" ]; then
  echo "accel-cuda-compiles: skipped: no nvcc (set LANES_NVCC, or run scripts/setup for the venv's)" >&2
  exit 77
fi

mkdir -p "$output_dir"
# sm_80 stands for any GPU: the check is that the code compiles. Warnings are
# errors, so that a deprecation in a newer toolkit shows up here first.
for source in "$source_dir"/plugins/accel/*.cu; do
  "$nvcc" -c -std=c++17 -arch=sm_80 -ccbin g++ \
    -I"$source_dir/plugins" -I"$source_dir/core/include" -I"$source_dir/monitor/include" \
    -Werror all-warnings -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter,-Werror \
    "$source" -o "$output_dir/$(basename "$source" .cu).o"
done
