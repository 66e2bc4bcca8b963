#!/usr/bin/env bash
# On a GPU machine: the main job's whole-process time at both depths (three quick runs, one full),
# then the compute probes of the newest kind (PROBES, default wgmma,clusters,divergence) with
# scripts/device-compute.sh, and cuBLAS's BF16 rate beside them (scripts/cublas-bf16.py, where
# PyTorch is installed).
# usage: scripts/device-main-timing.sh OUT_DIR      (BIN_DIR as for device-compute.sh)
# Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-main-timing.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
: > "$out/timing.txt"
for run in quick1 quick2 quick3 full1; do
  depth=quick
  [ "$run" = full1 ] && depth=full
  start=$(date +%s%N)
  "$bin/gputopo" --depth "$depth" -q -o "$out/$run.json" > /dev/null 2> "$out/$run.err"
  echo "$run exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/timing.txt"
done
PROBES=${PROBES:-wgmma,clusters,divergence} BIN_DIR=$bin bash "$here/device-compute.sh" \
  "$out/compute" > "$out/compute.txt" 2>&1
python3 "$here/cublas-bf16.py" > "$out/cublas-bf16.txt" 2>&1
cat "$out/timing.txt" "$out/compute.txt" "$out/cublas-bf16.txt"
