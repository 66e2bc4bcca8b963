#!/usr/bin/env bash
# On a machine of several GPUs (issue 16): `gputopo -d all` against what the driver tools say and
# against independent copies.
#   - nvidia-smi: the GPUs, `topo -m`, `topo -p2p r|w|a`, `nvlink -s` and `nvlink -c`;
#   - gputopo list (text and JSON);
#   - RUNS full `gputopo -d all` runs (host documents as JSON, whole-process wall time each), one
#     text run, and one recorded with --raw (DIR/gpuN, replayable with `gputopo analyze`);
#   - RUNS single-GPU runs of each GPU (`gputopo -d N`), for the wall-time comparison and for the
#     per-GPU attributes of -d all against those of a GPU run alone;
#   - bench/device/peer_reference (copy engines, SM copy kernels, load latency over the link,
#     pinned host copies) and a PyTorch copy between each pair;
#   - a summary (scripts/compare_multi.py).
# usage: scripts/device-multi.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo and peer_reference built with the `device` preset.
# Changes nothing about the GPUs: no clocks, no MIG, and no NVLink multicast (nothing here calls
# cuMulticastCreate).
set -uo pipefail
out=${1:?usage: device-multi.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
gputopo=$bin/gputopo
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm \
  --format=csv,noheader > "$out/nvidia-smi.csv" 2>&1
{
  echo "== topo -m"; nvidia-smi topo -m
  for m in r w a; do echo "== topo -p2p $m"; nvidia-smi topo -p2p "$m"; done
  echo "== nvlink -s"; nvidia-smi nvlink -s
  echo "== nvlink -c"; nvidia-smi nvlink -c
} > "$out/nvidia-smi-topo.txt" 2>&1
count=$(wc -l < "$out/nvidia-smi.csv")

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
timeout 60 "$gputopo" list > "$out/list.txt" 2> "$out/list.err"
timeout 60 "$gputopo" list --json > "$out/list.json" 2>> "$out/list.err"
for i in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  timeout 300 "$gputopo" -d all --json -o "$out/host$i.json" > /dev/null 2> "$out/host$i.err"
  echo "all$i exit $? wall $(ms "$start") ms" >> "$out/exit-codes.txt"
  for d in $(seq 0 $((count - 1))); do
    start=$(date +%s%N)
    timeout 120 "$gputopo" -d "$d" --json -o "$out/gpu$d-run$i.json" > /dev/null 2> "$out/gpu$d-run$i.err"
    echo "gpu$d-run$i exit $? wall $(ms "$start") ms" >> "$out/exit-codes.txt"
  done
done
timeout 300 "$gputopo" -d all > "$out/host.txt" 2> "$out/host-text.err"
echo "all-text exit $?" >> "$out/exit-codes.txt"
timeout 300 "$gputopo" -d all --raw "$out/host-raw" -o "$out/host-raw.json" > /dev/null 2> "$out/host-raw.err"
echo "all-raw exit $?" >> "$out/exit-codes.txt"
[ -d "$out/host-raw" ] && tar -czf "$out/host-raw.tgz" -C "$out" host-raw && rm -rf "$out/host-raw"

timeout 300 "$bin/peer_reference" > "$out/peer-reference.csv" 2> "$out/peer-reference.err"
echo "peer_reference exit $?" >> "$out/exit-codes.txt"
timeout 120 python3 - > "$out/torch-copy.csv" 2> "$out/torch-copy.err" <<'PY'
import torch
n = torch.cuda.device_count()
print("what,from,to,value,unit")
for i in range(n):
    for j in range(n):
        if i == j:
            continue
        src = torch.ones(256 << 20, dtype=torch.uint8, device=f"cuda:{j}")
        dst = torch.empty_like(src, device=f"cuda:{i}")
        rates = []
        with torch.cuda.device(i):
            for _ in range(11):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                dst.copy_(src)
                b.record()
                b.synchronize()
                rates.append(src.numel() / (a.elapsed_time(b) * 1e-3) / 1e9)
        rates = sorted(rates[1:])
        print(f"torch.copyReadGBps,{i},{j},{rates[len(rates) // 2]:.4g},GB/s")
PY
echo "torch exit $?" >> "$out/exit-codes.txt"

python3 "$here/compare_multi.py" "$out" > "$out/summary.txt" 2>&1
cat "$out/exit-codes.txt" "$out/summary.txt"
