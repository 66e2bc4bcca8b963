#!/usr/bin/env bash
# On a GPU machine: the compute side (issue 14, docs/compute.md) shown on real hardware.
#   - three runs of the compute probes (gputopo --only $PROBES, default pipelines,sharedBanks;
#     PROBES=barriers for the barrier probe; DEPTH=full for the instruction caches), JSON and text, one
#     recorded with --raw so that it can be replayed here (gputopo analyze);
#   - the SASS the binary holds for its compute kernels (cuobjdump -sass), its opcode counts
#     (scripts/sass-opcodes.py), and whether they match tests/data/compute/sm_90.opcodes, the
#     listing the SASS test checks (the same source compiled by the same nvcc gives the same);
#   - a table of the three runs side by side, with their spread.
# usage: scripts/device-compute.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset
# (cmake --preset device && cmake --build --preset device -j2 && cp build/device/src/cli/gputopo .devbin/).
# Everything lands in OUT_DIR within about a minute; a summary is printed last. Changes nothing
# about the GPU.
set -uo pipefail
out=${1:?usage: device-compute.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
gputopo=$bin/gputopo
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
mkdir -p "$out"
probes=${PROBES:-pipelines,sharedBanks}
depth=${DEPTH:-quick}

nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,driver_version --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1
for i in 1 2 3; do
  start=$(date +%s%N)
  if [ "$i" = 1 ]; then raw=(--raw "$out/raw"); else raw=(); fi
  timeout 120 "$gputopo" --depth "$depth" --only "$probes" --json -o "$out/run$i.json" "${raw[@]}" \
    > /dev/null 2> "$out/run$i.err"
  echo "run$i exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
done
timeout 120 "$gputopo" --depth "$depth" --only "$probes" > "$out/run-text.txt" 2> /dev/null

if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$gputopo" > "$out/compute-kernels.sass" 2> "$out/cuobjdump.err"
  python3 "$here/sass-opcodes.py" "$out/compute-kernels.sass" > "$out/sm_90.opcodes" \
    2>> "$out/cuobjdump.err"
  if diff -u "$repo/tests/data/compute/sm_90.opcodes" "$out/sm_90.opcodes" > "$out/opcodes.diff"; then
    echo "same as tests/data/compute/sm_90.opcodes" > "$out/opcodes-check.txt"
  else
    echo "DIFFERS from tests/data/compute/sm_90.opcodes (see opcodes.diff)" > "$out/opcodes-check.txt"
  fi
else
  echo "no cuobjdump on the PATH: SASS not dumped" > "$out/opcodes-check.txt"
fi

python3 - "$out" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
out = sys.argv[1]
runs = []
for i in (1, 2, 3):
    try:
        runs.append(json.load(open(f"{out}/run{i}.json"))["compute"])
    except Exception as e:  # noqa: BLE001
        print(f"run{i}: no report ({e})")
if runs:
    keys = [k for k in runs[0] if k.endswith(("Latency", "Throughput", "PerClkPerSm", "PerClk", "Tflops")) or k.startswith("shared")]
    print(f"{'attribute':34} {'run1':>10} {'run2':>10} {'run3':>10} {'spread%':>8} conf  sass")
    for k in keys:
        vals = [r.get(k, {}).get("value") for r in runs]
        nums = [v for v in vals if isinstance(v, (int, float))]
        spread = (max(nums) - min(nums)) / max(nums) * 100 if len(nums) > 1 and max(nums) else 0
        a = runs[0][k]
        cells = " ".join(f"{v:10.3f}" if isinstance(v, (int, float)) else f"{'n/a':>10}" for v in vals)
        print(f"{k:34} {cells} {spread:8.2f} {a.get('confidence', 0):.2f}  "
              f"{a.get('evidence', {}).get('sass', '')}  {a.get('reason', '')}")
PY

{
  echo "== nvidia-smi"; cat "$out/nvidia-smi.csv"
  echo "== exit codes and wall times"; cat "$out/exit-codes.txt"
  echo "== SASS"; cat "$out/opcodes-check.txt"
  echo "== three runs of the compute probes ($probes)"; cat "$out/summary.txt"
}
