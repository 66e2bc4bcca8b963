#!/usr/bin/env bash
# On a GPU machine: everything the issues ask to be shown on real hardware, in one call.
#   - gputopo info (text and JSON) against nvidia-smi and PyTorch,
#   - RUNS consecutive full discoveries (JSON reports, wall time each) and their consistency,
#   - one discovery recorded with --raw, the per-phase benchmark, and the backend's device check,
#   - chain_reference's independent latencies and bandwidths, held against the runs' values.
# usage: scripts/device-validate.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo, discovery_bench, device_check and chain_reference: build them
# here with the `device` preset and copy them there, then carry that folder to the GPU machine.
# Everything lands in OUT_DIR; a summary is printed last. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-validate.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-5}
gputopo=$bin/gputopo
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,driver_version,pci.bus_id \
  --format=csv,noheader,nounits > "$out/nvidia-smi.csv" 2>&1
python3 - "$out" <<'PY' 2> "$out/reference.err"
import json, sys
out = sys.argv[1]
name, mem, smmax, memmax, sm, drv, bus = [x.strip() for x in open(f"{out}/nvidia-smi.csv").read().split(",")]
ref = {"name": name, "memorySizeMiB": int(mem), "smClockMax": int(smmax),
       "memoryClockMax": int(memmax), "smClockNow": int(sm), "driver": drv, "pciBusId": bus}
try:
    import torch
    p = torch.cuda.get_device_properties(0)
    ref.update(smCount=p.multi_processor_count, l2Size=p.L2_cache_size)
except Exception as e:  # noqa: BLE001
    ref.update(smCount=None, l2Size=None, torchError=str(e))
json.dump(ref, open(f"{out}/reference.json", "w"), indent=1)
PY

"$gputopo" info > "$out/info.txt" 2> "$out/info.err"; echo "info exit $?" >> "$out/exit-codes.txt"
"$gputopo" info --json -o "$out/info.json" > /dev/null 2>> "$out/info.err"
for i in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  "$gputopo" --json -o "$out/run$i.json" > /dev/null 2> "$out/run$i.err"
  rc=$?
  echo "run$i exit $rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
done
"$gputopo" > "$out/run-text.txt" 2> /dev/null
"$gputopo" --raw "$out/raw" -o "$out/raw-run.json" > /dev/null 2> "$out/raw-run.err"
echo "raw exit $?" >> "$out/exit-codes.txt"
[ -x "$bin/discovery_bench" ] && "$bin/discovery_bench" --device 0 > "$out/bench.txt" 2>&1
[ -x "$bin/chain_reference" ] && "$bin/chain_reference" --l2-curve > "$out/chain-reference.csv" 2> "$out/chain-reference.err"
[ -x "$bin/device_check" ] && DEVICE_CHECK_BIN="$bin/device_check" "$here/device-check.sh" "$out/check" > /dev/null 2>&1

{
  echo "== info vs nvidia-smi / PyTorch"
  python3 "$here/compare_runs.py" --info "$out/info.json" --reference "$out/reference.json"
  echo "== $runs consecutive runs"
  python3 "$here/compare_runs.py" "$out"/run[0-9]*.json
  echo "== exit codes and wall times"; cat "$out/exit-codes.txt"
  echo "== against independent dependent chains and plain streams (chain_reference)"
  python3 "$here/compare_reference.py" "$out/chain-reference.csv" "$out"/run[0-9]*.json
  echo "== bench"; cat "$out/bench.txt" 2>/dev/null
  echo "== device check"; tail -n 45 "$out/check/device_check.txt" 2>/dev/null
} > "$out/summary.txt" 2>&1
cat "$out/info.txt"
cat "$out/summary.txt"
