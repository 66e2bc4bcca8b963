#!/usr/bin/env bash
# On a GPU machine: RUNS (default 3) consecutive discoveries of one GPU, each recorded with --raw,
# and how often each run's values fall inside the other runs' 95 % intervals
# (scripts/interval_agreement.py; docs/methods.md, "Intervals").
# usage: scripts/device-repeats.sh OUT_DIR [gputopo options, e.g. -d 1 or --depth full]
# BIN_DIR (default .devbin) holds gputopo (the `device` preset's build).
# OUT_DIR gets run<N>.json, run<N>.err and <gpu>-repeat-<N>.tgz: copy the .tgz files to
# tests/data/runs/repeats/ for tests/record/repeat_intervals_test.py, which replays them.
set -uo pipefail
out=${1:?usage: device-repeats.sh OUT_DIR [gputopo options]}
shift
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -n1 | tr 'A-Z ' 'a-z-' |
      sed 's/^nvidia-//; s/[^a-z0-9-]//g')
for i in $(seq 1 "$runs"); do
  rm -rf "$out/raw$i"
  "$bin/gputopo" "$@" --raw "$out/raw$i" --json -o "$out/run$i.json" > /dev/null 2> "$out/run$i.err"
  echo "run$i exit $?"
  tar czf "$out/$gpu-repeat-$i.tgz" -C "$out" "raw$i"
done
python3 "$here/interval_agreement.py" "$out"/run[0-9]*.json | tee "$out/agreement.txt"
