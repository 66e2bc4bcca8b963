#!/usr/bin/env bash
# On a GPU machine: where the main job's and --depth full's time goes, call by call (issue 33).
#   - the main job 3 times and --depth full twice (warm), each timed as a whole process, each with
#     GPUTOPO_CALL_TRACE (every device call's wall and device-timed milliseconds, on stderr);
#   - per phase: the calls, their wall and timed milliseconds and the gap between them (the
#     host's share), from the trace of each run;
#   - the values to compare with earlier runs: the L1-family sizes with their intervals, and the
#     TLB's levels, entries and page of the full runs.
# usage: scripts/device-call-trace.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR within about a minute. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-call-trace.sh OUT_DIR}
gputopo=${BIN_DIR:-.devbin}/gputopo
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1
: > "$out/times.txt"
run() {
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  GPUTOPO_CALL_TRACE=1 timeout 300 "$gputopo" "$@" --json -q -o "$out/$name.json" > /dev/null \
    2> "$out/$name.err"
  local rc=$?
  t1=$(date +%s.%N)
  echo "$name exit $rc $(echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}') s" >> "$out/times.txt"
}
for r in 1 2 3; do run "main$r"; done
for r in 1 2; do run "full$r" --depth full; done

python3 - "$out" > "$out/summary.txt" 2>&1 <<'PY'
import json, os, re, sys
out = sys.argv[1]
call = re.compile(r"gputopo: call (\S+) (.+?): ([0-9.]+) ms wall, ([0-9.]+) ms timed")
names = sorted(n[:-4] for n in os.listdir(out) if n.endswith(".err"))
for name in names:
    per = {}
    for line in open(os.path.join(out, name + ".err"), errors="replace"):
        m = call.search(line)
        if not m:
            continue
        p = per.setdefault(m.group(1), [0, 0.0, 0.0])
        p[0] += 1
        p[1] += float(m.group(3))
        p[2] += float(m.group(4))
    print(f"== {name}: phases with over 20 ms of calls (calls, wall ms, timed ms, wall - timed)")
    for probe, (n, wall, timed) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        if wall >= 20:
            print(f"  {probe:24s} {n:5d} {wall:9.1f} {timed:9.1f} {wall - timed:9.1f}")
    try:
        report = json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError) as e:
        print(f"  report: {e}")
        continue
    phases = {p.get("name"): p.get("seconds") for p in report.get("run", {}).get("phases", [])}
    for probe in ("l1.size", "texture.size", "readOnly.size", "l1.line", "tlb"):
        if phases.get(probe) is not None:
            print(f"  phase {probe}: {phases[probe]:.3f} s")
    memory = report.get("memory", {})
    for key in ("l1", "texture", "readOnly", "tlb", "tlb1", "tlb2", "tlb3"):
        for k in ("size", "entries", "pageSize", "tlbLevels"):
            a = memory.get(key, {}).get(k)
            if isinstance(a, dict):
                print(f"  {key}.{k} = {a.get('value')} interval {a.get('interval')}"
                      f" confidence {a.get('confidence')}")
PY
cat "$out/times.txt" "$out/summary.txt"
exit 0
