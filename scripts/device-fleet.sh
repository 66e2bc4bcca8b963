#!/usr/bin/env bash
# On a GPU machine: compare and check (docs/fleet.md) on real hardware.
#   - gputopo check: the main job on GPU 0, then the GPU against the built-in reference of its
#     model (the H100's or H200's report of docs/results), text, with the GPU's report in -o;
#   - check --json, and check with --tolerance 2;
#   - three more runs of the main job (-o) and gputopo compare of the four: one GPU's runs;
#   - compare of this run against every report of docs/results of the same model (other machines,
#     other commits);
#   - the exit code of each.
# usage: scripts/device-fleet.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR within about a minute. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-fleet.sh OUT_DIR}
gputopo=${BIN_DIR:-.devbin}/gputopo
mkdir -p "$out"
codes="$out/exit-codes.txt"

nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1

timeout 120 "$gputopo" -q check -o "$out/check-report.json" > "$out/check.txt" 2> "$out/check.err"
echo "check exit $?" >> "$codes"
timeout 120 "$gputopo" -q check --json > "$out/check.json" 2>> "$out/check.err"
echo "check --json exit $?" >> "$codes"
timeout 120 "$gputopo" -q check --tolerance 2 > "$out/check-2pct.txt" 2>> "$out/check.err"
echo "check --tolerance 2 exit $?" >> "$codes"

for i in 1 2 3; do
  timeout 120 "$gputopo" -q -o "$out/run$i.json" > /dev/null 2> "$out/run$i.err"
  echo "run$i exit $?" >> "$codes"
done
timeout 60 "$gputopo" compare "$out/check-report.json" "$out"/run[123].json \
  > "$out/compare-runs.txt" 2>&1
echo "compare runs exit $?" >> "$codes"

model=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['device']['name']['value'])" \
  "$out/check-report.json" 2>/dev/null)
others=()
for f in docs/results/*/run*.json docs/results/*/*/run*.json docs/results/*/*/layout*.json \
  docs/results/*/host*.json; do
  [ -f "$f" ] && grep -q "\"$model\"" "$f" && others+=("$f")
done
if [ ${#others[@]} -gt 0 ]; then
  timeout 60 "$gputopo" compare "$out/check-report.json" "${others[@]}" \
    > "$out/compare-results.txt" 2>&1
  echo "compare docs/results exit $?" >> "$codes"
fi

echo "== $model"
cat "$codes"
echo "== check (tolerance 5 %)"
cat "$out/check.txt"
echo "== check (tolerance 2 %)"
head -3 "$out/check-2pct.txt"
echo "== compare of this GPU's four runs"
cat "$out/compare-runs.txt"
echo "== compare with docs/results"
head -40 "$out/compare-results.txt" 2>/dev/null
