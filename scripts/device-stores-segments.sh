#!/usr/bin/env bash
# On a GPU machine: the store tests (l1/l2 writeAllocate, the L1's writePolicy) and the L2 segment
# each SM loads through (compute.nearL2Segments, --depth full), with the geometry runs of
# scripts/device-geometry.sh, the compact and full trees at --depth full, and a --raw recording of
# the store and segment probes.
# usage: scripts/device-stores-segments.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Changes nothing about
# the GPU.
set -uo pipefail
out=${1:?usage: device-stores-segments.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/nvidia-smi.txt" 2>&1
BIN_DIR=$bin bash scripts/device-geometry.sh "$out/geometry" > /dev/null 2>&1
cp "$out/geometry/summary.txt" "$out/geometry-summary.txt"
cp "$out/geometry/full1.json" "$out/full1.json"
cp "$out/geometry/quick1.json" "$out/quick1.json"
rm -rf "$out/geometry"
"$bin/gputopo" tree --depth full -q > "$out/tree.txt" 2> "$out/tree.err"
"$bin/gputopo" tree --depth full --full -q > "$out/tree-full.txt" 2>> "$out/tree.err"
"$bin/gputopo" --depth full --only l1.stores,l2.stores,l2Segments -q --raw "$out/raw" \
  -o "$out/stores-segments.json" > /dev/null 2> "$out/raw.err"
echo "raw exit $?" >> "$out/raw.err"
tar -czf "$out/stores-segments-raw.tgz" -C "$out" raw && rm -rf "$out/raw"
