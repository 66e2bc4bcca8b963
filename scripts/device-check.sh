#!/usr/bin/env bash
# Runs the CUDA backend's device check on this machine's GPU: prints the check table and writes
# raw sweeps (CSV, gzipped) and a log to OUT_DIR.
#
#   scripts/device-check.sh [OUT_DIR] [--device N]
#
# The binary is taken from DEVICE_CHECK_BIN if set, else build/device/bench/device/device_check;
# if neither exists it is built with the `device` preset (needs nvcc and the build dependencies).
# Reads the GPU's state with nvidia-smi (queries only); changes nothing about the card.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-out/device-check}}"
shift || true
mkdir -p "$out"

bin="${DEVICE_CHECK_BIN:-build/device/bench/device/device_check}"
if [ ! -x "$bin" ]; then
  echo "device-check: building device_check with the device preset" >&2
  cmake --preset device -B build/device >&2
  cmake --build build/device --target device_check -j "$(nproc)" >&2
  bin=build/device/bench/device/device_check
fi

if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,memory.used \
    --format=csv >&2 || true
fi

set +e
"$bin" --out "$out" "$@" 2> >(tee "$out/device_check.log" >&2)
rc=$?
set -e
for f in "$out"/*.csv; do
  [ -f "$f" ] && gzip -9 -f "$f"
done
exit $rc
