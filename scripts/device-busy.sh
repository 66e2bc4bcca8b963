#!/usr/bin/env bash
# On a GPU machine: issue 11's busy-GPU check. IDLE_RUNS (default 3) idle discoveries, then RUNS (default 3)
# discoveries while another process runs a bf16 matrix-multiply loop on the same GPU (PyTorch,
# started in the background and killed after each run), and a summary: status, exit code, and
# which discrete attributes differ from the idle run at confidence >= 0.5 (compare_busy.py).
# usage: scripts/device-busy.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo. Changes nothing about the GPU (no clocks, MIG or
# persistence). Takes about IDLE_RUNS x 4 s + RUNS x (the busy budget + 20 s), under 3 minutes.
set -uo pipefail
out=${1:?usage: device-busy.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
idle_runs=${IDLE_RUNS:-3}
gputopo=$bin/gputopo
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
: > "$out/exit-codes.txt"

discover() {  # NAME: one discovery, JSON to OUT_DIR/NAME.json, exit code and wall time noted
  local start end rc
  start=$(date +%s%N)
  timeout 120 "$gputopo" --json -o "$out/$1.json" > /dev/null 2> "$out/$1.err"
  rc=$?
  end=$(date +%s%N)
  echo "$1 exit $rc wall $(( (end - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
  echo "$rc"
}

nvidia-smi --query-gpu=name,clocks.sm,utilization.gpu,compute_mode --format=csv > "$out/nvidia-smi-idle.csv" 2>&1
idle_rc=$(discover idle)
for i in $(seq 2 "$idle_runs"); do discover "idle$i" > /dev/null; done

load_pid=
stop_load() {
  if [ -n "$load_pid" ] && kill -0 "$load_pid" 2> /dev/null; then
    kill "$load_pid"
    wait "$load_pid" 2> /dev/null
  fi
  load_pid=
}
trap stop_load EXIT

busy_args=()
for i in $(seq 1 "$runs"); do
  python3 - > "$out/load$i.log" 2>&1 <<'PY' &
import torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
print("matmul loop started", flush=True)
while True:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
PY
  load_pid=$!
  # Until the loop runs (CUDA context, first kernels), at most 30 s.
  for _ in $(seq 1 60); do
    grep -q "started" "$out/load$i.log" 2> /dev/null && break
    sleep 0.5
  done
  sleep 2
  nvidia-smi --query-gpu=name,clocks.sm,utilization.gpu --format=csv > "$out/nvidia-smi-busy$i.csv" 2>&1
  rc=$(discover "busy$i")
  stop_load
  busy_args+=("$out/busy$i.json:$rc")
done

{
  echo "idle exit $idle_rc"
  python3 "$here/compare_busy.py" "$out/idle.json" "${busy_args[@]}"
  echo "compare_busy exit $?"
  python3 - "$out"/idle*.json "$out"/busy*.json <<'PY'
import json, os, sys
for path in sys.argv[1:]:
    run = json.load(open(path))["run"]
    guard = run.get("guard", {})
    print(f"{os.path.basename(path)}: status {run['status']}, inside {run['durationSeconds']:.2f} s, "
          f"detection {guard.get('seconds', 0):.3f} s over {guard.get('checkpoints', 0)} checkpoints")
PY
  cat "$out/exit-codes.txt"
} | tee "$out/summary.txt"
