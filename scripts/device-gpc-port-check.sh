#!/usr/bin/env bash
# On a GPU machine: the layout probe's GPC port test against the experiment it comes from, on
# every GPU the machine shows. Per GPU, RUNS times (default 3) each: `gputopo --depth full --only
# layout` (GPUTOPO_CALL_TRACE and GPUTOPO_READ_RATE_TRACE on: every read_rate call's SMs, rounds,
# SM clock and repeats' GB/s in its stderr), the same with BIN_DIR/gputopo-before where that
# exists (another build, e.g. one without a change), then scripts/experiments/gpc-port.cu on the
# port test's sets of the first report (`scripts/gpc_port.py sets`: each GPC before the test, each
# loose unit, each GPC with each unit, the spread sets). scripts/gpc_port_check.py sets the rates
# side by side (summary.txt, also printed).
# usage: scripts/device-gpc-port-check.sh TARBALL
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset and may hold gpc-port
# prebuilt (nvcc -std=c++17 -O3 -arch=sm_90 -o BIN_DIR/gpc-port scripts/experiments/gpc-port.cu);
# else it is built with nvcc (ARCH, default sm_90). Everything lands in a temporary folder, packed
# into TARBALL: gpuN/ with gpu.txt, TOOL-N.json and .err, exp-N.csv and .err, sets.txt,
# summary.txt, exit-codes.txt. Changes nothing about the GPU.
set -uo pipefail
tarball=${1:?usage: device-gpc-port-check.sh TARBALL}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
arch=${ARCH:-sm_90}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)

exp=$bin/gpc-port
if [ ! -x "$exp" ]; then
  exp=$work/gpc-port
  nvcc -std=c++17 -O3 -arch="$arch" -o "$exp" "$here/experiments/gpc-port.cu" \
    2> "$work/gpc-port.build.err"
  echo "gpc-port build exit $?" >> "$work/exit-codes.txt"
fi

for gpu in $(nvidia-smi --query-gpu=index --format=csv,noheader); do
  d=$work/gpu$gpu
  mkdir -p "$d"
  nvidia-smi -i "$gpu" --format=csv \
    --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,driver_version \
    > "$d/gpu.txt" 2>&1
  for tool in gputopo gputopo-before; do
    [ -x "$bin/$tool" ] || continue
    for i in $(seq 1 "$runs"); do
      CUDA_VISIBLE_DEVICES=$gpu GPUTOPO_CALL_TRACE=1 GPUTOPO_READ_RATE_TRACE=1 "$bin/$tool" \
        --depth full --only layout --json -o "$d/$tool-$i.json" > /dev/null 2> "$d/$tool-$i.err"
      echo "$tool $i exit $?" >> "$d/exit-codes.txt"
    done
  done
  python3 "$here/gpc_port.py" sets "$d/gputopo-1.json" > "$d/sets.txt" 2> "$d/sets.err"
  if [ -s "$d/sets.txt" ]; then
    for i in $(seq 1 "$runs"); do
      CUDA_VISIBLE_DEVICES=$gpu "$exp" "$(cat "$d/sets.txt")" > "$d/exp-$i.csv" 2> "$d/exp-$i.err"
      echo "gpc-port $i exit $?" >> "$d/exit-codes.txt"
    done
  fi
  python3 "$here/gpc_port_check.py" "$d" > "$d/summary.txt" 2>&1
  echo "== GPU $gpu: $(tail -n 1 "$d/gpu.txt")"
  cat "$d/summary.txt" "$d/exit-codes.txt"
done
rm -f "$work/gpc-port"
tar czf "$tarball" -C "$work" .
