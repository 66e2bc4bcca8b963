#!/usr/bin/env bash
# On a GPU machine: address translation (docs/discovery.md, "TLB") under both mappings of the
# chased arrays. The tool's TLB probe runs each chase sweep once on the driver's allocation
# (cudaMalloc) and once on 2 MiB chunks mapped at scattered addresses (cuMemCreate/cuMemMap);
# the report takes one mapping's levels and keeps the other's in tlb.tlbLevels.evidence.otherMapping.
# Then the standalone experiments over the same mappings: scripts/experiments/vmm-tlb.cu (pages in
# random order) and vmm-tlb-sequential.cu (address order, as the probe chases; also the chunks
# mapped in order).
# usage: scripts/device-translation.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset and, where the device has
# no nvcc, the experiments vmm-tlb and vmm-tlb-sequential built beside it; RUNS (default 3) runs
# per depth. Everything lands in OUT_DIR: run-{quick,full}-N.json (+ .err, and --raw recordings
# raw-{quick,full}-1/), summary.txt (both mappings' levels and sweeps side by side), vmm-tlb.csv,
# vmm-tlb-sequential.csv;
# translation.tgz beside it. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-translation.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
gputopo=$bin/gputopo
mkdir -p "$out"

nvidia-smi --query-gpu=name,uuid,memory.total,memory.used,clocks.max.sm,driver_version \
  --format=csv,noheader > "$out/nvidia-smi.csv" 2>&1
for depth in quick full; do
  for i in $(seq 1 "$runs"); do
    raw=()
    [ "$i" = 1 ] && raw=(--raw "$out/raw-$depth-1")
    start=$(date +%s%N)
    "$gputopo" --only tlb --depth "$depth" --json -o "$out/run-$depth-$i.json" "${raw[@]}" \
      > /dev/null 2> "$out/run-$depth-$i.err"
    rc=$?
    echo "$depth $i exit $rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
  done
done

# The experiments: prebuilt in BIN_DIR (the device has no nvcc; build them where nvcc is with
#   nvcc -std=c++17 -O3 -arch=sm_90 -o BIN_DIR/vmm-tlb scripts/experiments/vmm-tlb.cu \
#     -L/usr/local/cuda/lib64/stubs -lcuda
# and the same for vmm-tlb-sequential), else built here where nvcc is found, else skipped.
for x in vmm-tlb vmm-tlb-sequential; do
  exe=$bin/$x
  if [ ! -x "$exe" ] && command -v nvcc > /dev/null; then
    exe=$out/$x
    nvcc -std=c++17 -O3 -arch=sm_90 -o "$exe" "scripts/experiments/$x.cu" -lcuda \
      > "$out/$x.build" 2>&1 || exe=
  fi
  if [ -n "$exe" ] && [ -x "$exe" ]; then
    timeout 300 "$exe" > "$out/$x.csv" 2> "$out/$x.err"
    echo "$x exit $?" >> "$out/exit-codes.txt"
  else
    echo "$x skipped: no $bin/$x and no nvcc" >> "$out/exit-codes.txt"
  fi
  rm -f "$out/$x"
done

python3 - "$out" "$runs" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
def show(v):
    return json.dumps(v) if isinstance(v, (list, dict)) else f"{v:.6g}" if isinstance(v, float) else str(v)
def sweeps(ev, indent):
    print(f"{indent}hit {ev.get('hitCycles')}  tolerance {ev.get('countSweep', {}).get('tolerance')}")
    print(f"{indent}stride sweep (stride, elements, cycles, cycles at half stride x2 elements):")
    for p in ev.get("strideSweep", {}).get("points", []):
        print(indent + "  " + "  ".join(show(x) for x in p))
    cs = ev.get("countSweep", {})
    if cs:
        print(f"{indent}count sweep at stride {cs.get('stride')} (elements, cycles):")
        for p in cs.get("points", []):
            print(indent + "  " + "  ".join(show(x) for x in p))
for depth in ("quick", "full"):
    for i in range(1, runs + 1):
        try:
            r = json.load(open(f"{out}/run-{depth}-{i}.json"))
        except Exception as e:  # noqa: BLE001
            print(f"== {depth} {i}: no report ({e})")
            continue
        mem = r.get("memory", {})
        lv = mem.get("tlb", {}).get("tlbLevels", {})
        ev = lv.get("evidence") or {}
        print(f"== {depth} {i}: reported mapping {ev.get('mapping')}: tlbLevels "
              + (show(lv["value"]) if lv.get("value") is not None else "n/e: " + lv.get("reason", "")))
        for e in ("tlb", "tlb1", "tlb2", "tlb3"):
            for k in ("pageSize", "entries", "reach", "associativity", "missPenalty", "sharedWith"):
                a = mem.get(e, {}).get(k)
                if a and a.get("value") is not None:
                    iv = a.get("interval")
                    print(f"  {e}.{k} = {show(a['value'])}" + (f"  [{iv}]" if iv else ""))
        other = ev.get("otherMapping", {})
        print(f"  other mapping {other.get('mapping')}: levels {other.get('tlbLevels')} "
              f"page {other.get('pageSize')} per level {other.get('levels')} reason {other.get('reason')}")
        if i == runs:
            print(f"  -- sweeps of the reported mapping ({ev.get('mapping')})")
            sweeps(ev, "    ")
            print(f"  -- sweeps of the other mapping ({other.get('mapping')})")
            sweeps(other.get("evidence") or {}, "    ")
PY
cat "$out/exit-codes.txt" >> "$out/summary.txt"
tar -czf "$out/../translation.tgz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
cat "$out/summary.txt"
