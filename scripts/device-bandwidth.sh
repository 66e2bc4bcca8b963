#!/usr/bin/env bash
# gputopo's bandwidths beside peer benchmarks, run in turn in one call on one GPU, RUNS times
# (docs/results/README.md, "Bandwidth against peers").
#   scripts/device-bandwidth.sh GPUTOPO PEERS_DIR OUT [RUNS]
# PEERS_DIR holds peer binaries built outside the project from their public source, for sm_90
# and without their CUPTI metrics: gpu-l2-cache, gpu-cache and gpu-stream (RRZE-HPC/gpu-benches).
# A peer that is missing is skipped. Each peer runs under a time limit that covers the sizes the
# comparison reads (gpu-cache's L2 sizes only on the first run).
set -uo pipefail
gputopo=$1
peers=$2
out=$3
runs=${4:-3}
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv >"$out/gpu.txt" 2>&1
only=l1.bandwidth,shared.bandwidth,l2.bandwidth,dram.bandwidth
peer() {
  local name=$1 limit=$2 file=$3
  [ -x "$peers/$name" ] || return 0
  timeout "$limit" "$peers/$name" >"$file" 2>&1
}
for r in $(seq 1 "$runs"); do
  "$gputopo" --only "$only" --json -q -o "$out/gputopo-$r.json" >/dev/null 2>"$out/gputopo-$r.err"
  echo "gputopo run $r: exit $?"
  peer gpu-l2-cache 12 "$out/gpu-l2-cache-$r.txt"
  peer gpu-cache "$([ "$r" = 1 ] && echo 75 || echo 20)" "$out/gpu-cache-$r.txt"
  peer gpu-stream 50 "$out/gpu-stream-$r.txt"
done
