#!/usr/bin/env bash
# On a GPU machine: the raw signals for L2 slices and GPC placement (docs/methods.md, "Profile
# groups"). 1. `gputopo --depth full` (the co-scheduling GPCs in compute.gpcCount's evidence);
# 2. scripts/experiments/sm-slice-latency.cu: every SM's L2 latency to 1,024 consecutive lines and
# to each power-of-two offset; 3. scripts/experiments/gpc-contention.cu: each SM's L2 latency while
# one group streams L2 hits with 1,024 threads a SM, for each co-scheduling GPC and each such GPC
# without its lowest TPC (the witness: does streaming slow the GPC's own SMs more?);
# 4. scripts/experiments/l2-slice-contention.cu: the slice classes of 1,024 consecutive lines by
# two-line contention, hammered from every SM (slices-all.csv.gz) and from the SMs of the first
# co-scheduling GPC (slices-gpc.csv.gz); 5. scripts/experiments/gpc-port.cu: the L2 read rate of
# each GPC, of as many SMs spread over the GPCs, and of each GPC with each unplaced SM pair
# (port.csv). scripts/gpc_contention.py, gpc_port.py and l2_slices.py read the results (into
# contention.txt, port.txt, slices-all.txt, slices-gpc.txt).
# usage: scripts/device-slices.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset, and may hold the four
# experiments prebuilt (nvcc -std=c++17 -O3 -arch=sm_90 -o BIN_DIR/NAME NAME.cu); those missing
# are built with nvcc (ARCH, default sm_90). Everything lands in OUT_DIR: report.json,
# table.csv.gz, contention.csv.gz, slices-*.csv.gz, groups.txt, gpu.txt, *.err, *.txt,
# exit-codes.txt. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-slices.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
arch=${ARCH:-sm_90}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

nvidia-smi --query-gpu=name,uuid,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
"$bin/gputopo" --depth full --json -o "$out/report.json" > /dev/null 2> "$out/gputopo.err"
echo "gputopo exit $?" >> "$out/exit-codes.txt"

for exp in sm-slice-latency gpc-contention gpc-port l2-slice-contention; do
  if [ -x "$bin/$exp" ]; then
    cp "$bin/$exp" "$out/$exp"
  else
    nvcc -std=c++17 -O3 -arch="$arch" -o "$out/$exp" "$here/experiments/$exp.cu" 2> "$out/$exp.build.err"
    echo "$exp build exit $?" >> "$out/exit-codes.txt"
  fi
done

"$out/sm-slice-latency" 2> "$out/sm-slice-latency.err" | gzip > "$out/table.csv.gz"
echo "sm-slice-latency exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"

# Aggressor groups: the co-scheduling GPCs, then each of them without its lowest SM pair.
python3 - "$here" "$out/report.json" > "$out/groups.txt" 2> "$out/groups.err" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from report_gpcs import find_gpcs
report = json.load(open(sys.argv[2]))
gpcs = find_gpcs(report)
witness = [sorted(g)[2:] for g in gpcs if len(g) >= 4]
print(";".join(",".join(map(str, g)) for g in gpcs + witness))
PY
if [ -s "$out/groups.txt" ]; then
  "$out/gpc-contention" "$(cat "$out/groups.txt")" 1024 2> "$out/gpc-contention.err" |
    gzip > "$out/contention.csv.gz"
  echo "gpc-contention exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"
  python3 "$here/gpc_contention.py" "$out" > "$out/contention.txt" 2>&1
else
  echo "gpc-contention skipped: no co-scheduling GPCs in report.json" >> "$out/exit-codes.txt"
fi

python3 "$here/gpc_port.py" sets "$out/report.json" > "$out/port-sets.txt" 2> "$out/port-sets.err"
if [ -s "$out/port-sets.txt" ]; then
  "$out/gpc-port" "$(cat "$out/port-sets.txt")" > "$out/port.csv" 2> "$out/gpc-port.err"
  echo "gpc-port exit $?" >> "$out/exit-codes.txt"
  python3 "$here/gpc_port.py" read "$out/port.csv" > "$out/port.txt" 2>&1
fi

first_gpc=$(cut -d';' -f1 "$out/groups.txt" 2> /dev/null)
for run in all gpc; do
  sms_arg=()
  if [ "$run" = gpc ]; then
    [ -n "$first_gpc" ] || continue
    sms_arg=("$first_gpc")
  fi
  "$out/l2-slice-contention" 1024 ${sms_arg[@]+"${sms_arg[@]}"} 2> "$out/slices-$run.err" |
    gzip > "$out/slices-$run.csv.gz"
  echo "l2-slice-contention $run exit ${PIPESTATUS[0]}" >> "$out/exit-codes.txt"
  python3 "$here/l2_slices.py" "$out/slices-$run.csv.gz" > "$out/slices-$run.txt" 2>&1
done
rm -f "$out/sm-slice-latency" "$out/gpc-contention" "$out/gpc-port" "$out/l2-slice-contention"
cat "$out/exit-codes.txt"
