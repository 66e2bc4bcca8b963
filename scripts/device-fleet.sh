#!/usr/bin/env bash
# On a GPU machine: check and compare (docs/fleet.md) on real hardware, as issue 30 judges them.
#   - gputopo check five times on GPU 0 against the built-in reference of its model, each run's
#     report kept with -o (check-runN.json: main-job runs for scripts/make-reference.py);
#   - compare of the five runs (one GPU's runs);
#   - on a machine of several GPUs, gputopo -d all, then compare of its GPUs;
#   - the exit code of each.
# usage: scripts/device-fleet.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR within about two minutes. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-fleet.sh OUT_DIR}
gputopo=${BIN_DIR:-.devbin}/gputopo
mkdir -p "$out"
codes="$out/exit-codes.txt"
: > "$codes"

nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1

for i in 1 2 3 4 5; do
  timeout 120 "$gputopo" -q check --json -o "$out/check-run$i.json" > "$out/check$i.json" \
    2> "$out/check$i.err"
  echo "check $i exit $?" >> "$codes"
done
timeout 60 "$gputopo" compare "$out"/check-run[12345].json > "$out/compare-runs.txt" 2>&1
echo "compare of the five runs exit $?" >> "$codes"

gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
if [ "$gpus" -gt 1 ]; then
  timeout 300 "$gputopo" -d all -q -o "$out/host.json" > /dev/null 2> "$out/host.err"
  echo "-d all exit $?" >> "$codes"
  timeout 60 "$gputopo" compare "$out/host.json" > "$out/compare-host.txt" 2>&1
  echo "compare of -d all exit $?" >> "$codes"
fi

cat "$codes"
for i in 1 2 3 4 5; do
  python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(sys.argv[2], c['compared'], 'compared,', len(c['differences']), 'differ:', ', '.join(d['attribute'] for d in c['differences']))" \
    "$out/check$i.json" "check $i:" 2>/dev/null
done
echo "== compare of the five runs"
cat "$out/compare-runs.txt"
[ -f "$out/compare-host.txt" ] && { echo "== compare of -d all"; cat "$out/compare-host.txt"; }
exit 0
