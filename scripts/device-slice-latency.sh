#!/usr/bin/env bash
# On a GPU machine: every SM's L2 hit latency to 4,096 consecutive lines (the L2's latency classes
# and whether they are an XOR hash of address bits 7-18; scripts/l2_slice_latency.py), and
# gputopo's layout probes (`l2.slices` among them) at --depth full.
# usage: scripts/device-slice-latency.sh OUT_DIR
# BIN_DIR (default .devbin) holds `gputopo` built with the `device` preset and `sm-slice-latency`
# (nvcc -std=c++17 -O3 -arch=sm_90 -o BIN_DIR/sm-slice-latency
# scripts/experiments/sm-slice-latency.cu); nothing is built here. Writes to OUT_DIR: gpu.txt,
# table.csv.gz (lines in one order for every SM, as the recorded H100 table) and
# table-rotated.csv.gz (each SM starts at its own line), classes*.txt, map*.csv.gz,
# report.json, tree.txt (`tree --full`), slices.txt, *.err, exit-codes.txt. Needs python3 with numpy
# and scipy for classes*.txt (the tables are kept either way). Changes nothing about the GPU.
# About 30 s.
set -uo pipefail
out=${1:?usage: device-slice-latency.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
here=$(cd "$(dirname "$0")" && pwd)
lines=${LINES:-4096}
mkdir -p "$out"
: > "$out/exit-codes.txt"

nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
for rotate in 0 1; do
  name=table
  [ "$rotate" = 1 ] && name=table-rotated
  timeout 120 "$bin/sm-slice-latency" 1024 "$lines" "$rotate" 2> "$out/$name.err" |
    gzip > "$out/$name.csv.gz"
  echo "sm-slice-latency rotate $rotate exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"
  python3 "$here/l2_slice_latency.py" "$out/$name.csv.gz" --map "$out/map-$name.csv" \
    > "$out/classes-$name.txt" 2>&1
  gzip -f "$out/map-$name.csv" 2> /dev/null
done

probes=layout,l2Segments,l2.slices
timeout 120 "$bin/gputopo" tree --full --depth full --only "$probes" -o "$out/report.json" \
  > "$out/tree.txt" 2> "$out/gputopo.err"
echo "gputopo exit $?" >> "$out/exit-codes.txt"
python3 - "$out/report.json" > "$out/slices.txt" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l2 = r["memory"]["l2"]
for key in ("sliceCount", "sliceLatencySpread"):
    a = l2.get(key, {})
    print(key, a.get("value"), a.get("interval"), a.get("confidence"), a.get("reason", ""))
ev = l2.get("sliceCount", {}).get("evidence", {})
for k in ("classSizes", "hashLinear", "hashMasks", "hashConsistency", "hashMisfits", "timedSms",
          "sampleSdCycles", "weakestSplitChi2", "strongestMergeChi2", "criticalChi2"):
    print(k, ev.get(k))
for p in r["run"]["phases"]:
    if p["name"] == "l2.slices":
        print("l2.slices seconds", p["seconds"])
PY
cat "$out/exit-codes.txt"
grep -h "^count:\|misses\|exact form\|R^2" "$out"/classes-*.txt
cat "$out/slices.txt"
