#!/usr/bin/env bash
# On a GPU machine: the L2 slice count by reduction contention, checked against Nsight Compute's
# per-slice counters (docs/methods.md, "Contention classes"). Nsight Compute runs with
# --clock-control none and --cache-control none: nothing about the card changes.
# 1. gputopo --depth full twice and the l2.slices probe alone (whole process timed);
# 2. scripts/experiments/l2-slice-classes.cu over 1,024 lines, twice;
# 3. with NCU=1 (default): the probe alone under Nsight Compute, each reduction kernel's per-slice
#    maximum, sum and duration (ncu.csv.gz, read by scripts/slice_verdicts.py into verdicts.txt);
# 4. with COUNTERS=1: scripts/l2_slice_counters.py, the slice of every line by counters alone
#    (about 380 s on an H200; counters/).
# usage: scripts/device-slice-counters.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset and may hold the
# experiments prebuilt (l2-slice-classes, l2-slice-counters); those missing are built with nvcc.
set -uo pipefail
out=${1:?usage: device-slice-counters.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
now() { python3 -c 'import time; print(time.time())'; }
took() { python3 -c "print(round($(now) - $1, 2))"; }

nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
for exp in l2-slice-classes l2-slice-counters; do
  [ -x "$bin/$exp" ] && continue
  nvcc -std=c++20 -O3 -arch=sm_90 -I"$here/../src" -o "$bin/$exp" "$here/experiments/$exp.cu" \
    "$here/../src/analysis/contention_classes.cpp" 2> "$out/$exp.build.err"
done
for i in 1 2; do
  t0=$(now); "$bin/gputopo" --depth full -q --json -o "$out/full$i.json" > /dev/null 2> "$out/full$i.err"
  echo "full$i exit $? $(took "$t0") s" >> "$out/log.txt"
done
t0=$(now); "$bin/gputopo" --only l2.slices --depth full -q --json -o "$out/slices.json" > /dev/null 2> "$out/slices.err"
echo "slices alone exit $? $(took "$t0") s" >> "$out/log.txt"
for i in 1 2; do
  t0=$(now); "$bin/l2-slice-classes" 1024 8 > "$out/classes$i.csv" 2>> "$out/classes.err"
  echo "l2-slice-classes $i exit $? $(took "$t0") s: $(tail -1 "$out/classes.err")" >> "$out/log.txt"
done
if [ "${NCU:-1}" = 1 ]; then
  m=lts__t_requests_srcunit_tex_op_red.max,lts__t_requests_srcunit_tex_op_red.sum,gpu__time_duration.sum
  t0=$(now)
  timeout 420 ncu --clock-control none --cache-control none --csv -k regex:reduction_kernel \
    --metrics "$m" "$bin/gputopo" --only l2.slices --depth full -q --json -o "$out/ncu.json" \
    > "$out/ncu.csv" 2> "$out/ncu.err"
  echo "gputopo under ncu exit $? $(took "$t0") s" >> "$out/log.txt"
  python3 "$here/slice_verdicts.py" "$out/ncu.csv" > "$out/verdicts.txt" 2>&1
fi
if [ "${COUNTERS:-0}" = 1 ]; then
  lines="$(python3 -c "print(' '.join(map(str, list(range(1024)) + [1024 * m for m in range(1, 16)])))")"
  t0=$(now)
  timeout 500 python3 "$here/l2_slice_counters.py" "$bin/l2-slice-counters" "$out/counters" 128 \
    $lines > /dev/null 2> "$out/counters.err"
  echo "counters exit $? $(took "$t0") s" >> "$out/log.txt"
fi
python3 - "$out" >> "$out/log.txt" <<'PY'
import json, sys
for name in ["full1", "full2", "slices", "ncu"]:
    try:
        a = json.load(open(f"{sys.argv[1]}/{name}.json"))["memory"]["l2"]["sliceCount"]
    except (OSError, KeyError, ValueError):
        continue
    e = a.get("evidence", {})
    print(name, a.get("value"), a.get("interval"), a.get("confidence"), a.get("reason", "")[:160],
          {k: e.get(k) for k in ["tests", "referenceMicroseconds", "worstDistinctRatio",
                                 "worstSharedRatio", "expectedUnseenClasses"]})
    m = json.load(open(f"{sys.argv[1]}/{name}.json"))["memory"]["l2"].get("sliceLatencySpread", {})
    print(name, "spread", m.get("value"), m.get("interval"), m.get("confidence"),
          m.get("method", m.get("reason", ""))[:100], m.get("evidence", {}).get("least"),
          m.get("evidence", {}).get("most"))
PY
gzip -f "$out"/*.csv "$out"/*.json 2> /dev/null
cat "$out/log.txt" "$out/verdicts.txt" 2> /dev/null
