#!/usr/bin/env bash
# On a GPU machine: the TLB probe (docs/discovery.md, "TLB") in the quick (default) and the full
# discovery, RUNS times each: the TLB attributes of every run, the per-probe times and the whole
# run's wall time, and the raw stride and count sweeps of the last runs, to judge the steps by eye.
# usage: scripts/device-tlb.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR (reports run-{quick,full}-N.json, their stderr, summary.txt) and tlb.tgz beside it.
# Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-tlb.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
gputopo=$bin/gputopo
mkdir -p "$out"

nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.max.sm,driver_version \
  --format=csv,noheader > "$out/nvidia-smi.csv" 2>&1
for depth in quick full; do
  for i in $(seq 1 "$runs"); do
    start=$(date +%s%N)
    "$gputopo" --depth "$depth" --json -o "$out/run-$depth-$i.json" > /dev/null \
      2> "$out/run-$depth-$i.err"
    rc=$?
    echo "$depth $i exit $rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
  done
done

python3 - "$out" "$runs" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
keys = ["tlbLevels", "pageSize", "entries", "reach", "associativity", "missPenalty", "sharedWith"]
def load(depth, i):
    try:
        return json.load(open(f"{out}/run-{depth}-{i}.json"))
    except Exception as e:  # noqa: BLE001
        print(f"run-{depth}-{i}: no report ({e})")
        return None
for depth in ("quick", "full"):
    print(f"== {depth}: TLB attributes per run (value, or the reason it is not established)")
    reports = [load(depth, i) for i in range(1, runs + 1)]
    for element in ("tlb", "tlb1", "tlb2", "tlb3"):
        for key in keys:
            row = []
            for r in reports:
                a = (r or {}).get("memory", {}).get(element, {}).get(key) if r else None
                if a is None:
                    row.append("-")
                elif a.get("value") is None:
                    row.append("n/e: " + a.get("reason", "")[:110])
                else:
                    v = a["value"]
                    row.append(json.dumps(v) if isinstance(v, list) else f"{v:.6g}" if isinstance(v, float) else str(v))
            if any(x != "-" for x in row):
                same = "same" if len(set(row)) == 1 else "DIFFER"
                print(f"  {element}.{key:14s} [{same}] " + " | ".join(row))
    print(f"== {depth}: wall time and phase times (s) per run")
    for i, r in enumerate(reports, 1):
        if not r:
            continue
        phases = {p["name"]: p["seconds"] for p in r["run"]["phases"]}
        top = sorted(phases.items(), key=lambda kv: -kv[1])[:6]
        print(f"  run {i}: total {r['run']['durationSeconds']:.2f}  tlb {phases.get('tlb', 0):.3f}  "
              + "  ".join(f"{k} {v:.3f}" for k, v in top))
    last = reports[-1]
    if last:
        tlb = last["memory"].get("tlb", {})
        ev = {}
        for key in ("tlbLevels", "pageSize"):
            ev = ev or (tlb.get(key) or {}).get("evidence") or {}
        print(f"== {depth}: raw sweeps of run {runs} (cycles per load; hit = {ev.get('hitCycles')})")
        ss = ev.get("strideSweep", {})
        print("  stride sweep: stride B, elements, cycles at stride, cycles at stride/2 with 2x elements")
        for p in ss.get("points", []):
            print("   ", "  ".join(f"{x:.1f}" if isinstance(x, float) else str(x) for x in p))
        cs = ev.get("countSweep", {})
        print(f"  count sweep at stride {cs.get('stride')} B: elements, cycles")
        for p in cs.get("points", []):
            print("   ", "  ".join(f"{x:.1f}" if isinstance(x, float) else str(x) for x in p))
        for element in ("tlb1", "tlb2", "tlb3"):
            e = last["memory"].get(element, {}).get("entries", {}).get("evidence")
            if e:
                print(f"  {element}: first miss at {e.get('firstMissElements')} elements, all miss at "
                      f"{e.get('allMissElements')}, hit {e.get('hitCycles')}, miss {e.get('missCycles')}")
        sw = (last["memory"].get("tlb1", {}).get("sharedWith") or {})
        print("  tlb1.sharedWith evidence:", json.dumps(sw.get("evidence")))
    for w in (last or {}).get("warnings", []):
        if "tlb" in w:
            print("  warning:", w)
PY
cat "$out/exit-codes.txt" >> "$out/summary.txt"
tar -czf "$out/../tlb.tgz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
cat "$out/summary.txt"
