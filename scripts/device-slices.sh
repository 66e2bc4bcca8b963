#!/usr/bin/env bash
# On a GPU machine: the raw signals for L2 slices and GPC placement (docs/methods.md, "Profile
# groups"). 1. `gputopo --depth full` (the co-scheduling GPCs in compute.gpcCount's evidence);
# 2. scripts/experiments/sm-slice-latency.cu: every SM's L2 latency to 1,024 consecutive lines and
# to each power-of-two offset; 3. scripts/experiments/gpc-contention.cu: each SM's L2 latency while
# one group streams L2 hits, for each co-scheduling GPC and each SM pair that no GPC holds.
# usage: scripts/device-slices.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset; nvcc builds the two
# experiments (ARCH, default sm_90). Everything lands in OUT_DIR: report.json, table.csv.gz,
# contention.csv.gz, groups.txt, gpu.txt, *.err, exit-codes.txt. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-slices.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
arch=${ARCH:-sm_90}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
"$bin/gputopo" --depth full --json -o "$out/report.json" > /dev/null 2> "$out/gputopo.err"
echo "gputopo exit $?" >> "$out/exit-codes.txt"

for exp in sm-slice-latency gpc-contention; do
  nvcc -std=c++17 -O3 -arch="$arch" -o "$out/$exp" "$here/experiments/$exp.cu" 2> "$out/$exp.build.err"
  echo "$exp build exit $?" >> "$out/exit-codes.txt"
done

"$out/sm-slice-latency" 2> "$out/sm-slice-latency.err" | gzip > "$out/table.csv.gz"
echo "sm-slice-latency exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"

# Aggressor groups: the co-scheduling GPCs, then every SM pair (2k, 2k + 1) in none of them.
python3 - "$out/report.json" > "$out/groups.txt" 2> "$out/groups.err" <<'PY'
import json, sys
def find(node):
    if isinstance(node, dict):
        if "gpcCount" in node and isinstance(node["gpcCount"], dict):
            return node["gpcCount"]
        for v in node.values():
            r = find(v)
            if r:
                return r
    return None
report = json.load(open(sys.argv[1]))
gpc = find(report) or {}
gpcs = gpc.get("evidence", {}).get("gpcs", [])
sms = (report.get("compute", {}).get("smCount") or {}).get("value") or 0
placed = {s for g in gpcs for s in g}
top = max([s for g in gpcs for s in g] + [sms - 1, -1])
pairs = [[s, s + 1] for s in range(0, top + 1, 2) if s not in placed or s + 1 not in placed]
print(";".join(",".join(map(str, g)) for g in gpcs + pairs))
PY
if [ -s "$out/groups.txt" ]; then
  "$out/gpc-contention" "$(cat "$out/groups.txt")" 2> "$out/gpc-contention.err" |
    gzip > "$out/contention.csv.gz"
  echo "gpc-contention exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"
else
  echo "gpc-contention skipped: no co-scheduling GPCs in report.json" >> "$out/exit-codes.txt"
fi
rm -f "$out/sm-slice-latency" "$out/gpc-contention"
cat "$out/exit-codes.txt"
