#!/usr/bin/env bash
# On a GPU machine: how long gputopo takes (issue 33), whole process and per phase.
#   - the main job 3 times, then --depth full 3 times (warm: the driver's JIT cache already holds
#     the compute probes' code bodies after the first), each timed as a whole process;
#   - --depth full once more with an empty JIT cache (CUDA_CACHE_PATH in a new folder), the cost a
#     fresh machine pays;
#   - on a machine of several GPUs, -d all twice;
#   - the main job once with GPUTOPO_STREAM_TRACE (every bandwidth candidate's rate, on stderr);
#   - bench/phases.py's phase tables of the main job and of --depth full.
# usage: scripts/device-speed.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR within about two minutes. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-speed.sh OUT_DIR}
gputopo=${BIN_DIR:-.devbin}/gputopo
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1

# timed NAME TIMES_FILE ARGS...: one whole-process run, its seconds appended to TIMES_FILE.
timed() {
  local name=$1 times=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  timeout 300 "$gputopo" "$@" > /dev/null 2> "$out/$name.err"
  local rc=$?
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >> "$times"
  echo "$name: exit $rc, $(tail -n 1 "$times") s" | tee -a "$out/summary.txt"
}

: > "$out/summary.txt"
: > "$out/main-times.txt"
: > "$out/full-times.txt"
for r in 1 2 3; do timed "main$r" "$out/main-times.txt" --json -q -o "$out/main$r.json"; done
for r in 1 2 3; do
  timed "full$r" "$out/full-times.txt" --depth full --json -q -o "$out/full$r.json"
done
cold=$(mktemp -d)
: > "$out/full-cold-times.txt"
CUDA_CACHE_PATH=$cold timed full-cold "$out/full-cold-times.txt" --depth full --json -q \
  -o "$out/full-cold.json"
rm -rf "$cold"

gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
if [ "$gpus" -gt 1 ]; then
  : > "$out/all-times.txt"
  for r in 1 2; do timed "all$r" "$out/all-times.txt" -d all --json -q -o "$out/all$r.json"; done
fi
GPUTOPO_STREAM_TRACE=1 timed main-trace "$out/trace-times.txt" --json -q -o "$out/main-trace.json"
mv "$out/main-trace.err" "$out/stream-trace.txt"

if command -v python3 > /dev/null; then
  for kind in main full; do
    python3 "$here/bench/phases.py" --min 0.01 --times "$out/$kind-times.txt" \
      "$out/$kind"[123].json > "$out/phases-$kind.md" 2>&1
    echo "== $kind" && cat "$out/phases-$kind.md"
  done
fi
echo "== whole-process seconds"
cat "$out/summary.txt"
exit 0
