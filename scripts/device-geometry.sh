#!/usr/bin/env bash
# On a GPU machine: the cache-geometry attributes (docs/discovery.md, "Cache geometry") of the
# quick and the full discovery, RUNS times each (default 3), with the wall time of every run and
# the seconds of every geometry phase.
# usage: scripts/device-geometry.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset. Everything lands in
# OUT_DIR (quickN.json, fullN.json, their stderr, summary.txt) and OUT_DIR.tar.gz. Changes nothing
# about the GPU.
set -uo pipefail
out=${1:?usage: device-geometry.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
gputopo=$bin/gputopo
mkdir -p "$out"
: > "$out/exit-codes.txt"
for depth in quick full; do
  for i in $(seq 1 "$runs"); do
    start=$(date +%s%N)
    "$gputopo" --depth "$depth" --json -o "$out/$depth$i.json" > /dev/null 2> "$out/$depth$i.err"
    rc=$?
    echo "$depth$i exit $rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
  done
done

python3 - "$out" "$runs" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
keys = ["lineSize", "fetchGranularity", "sectorSize", "size", "segmentSize", "associativity",
        "sets", "indexFunction", "replacementPolicy", "sectorsPerLine", "missFill", "writePolicy",
        "writeAllocate"]
geometry = {"associativity", "sets", "indexFunction", "replacementPolicy", "sectorsPerLine",
            "missFill", "writePolicy", "writeAllocate"}
for depth in ("quick", "full"):
    reports = []
    for i in range(1, runs + 1):
        try:
            reports.append(json.load(open(f"{out}/{depth}{i}.json")))
        except Exception as e:  # noqa: BLE001
            print(f"{depth}{i}: no report ({e})")
    if not reports:
        continue
    print(f"== {depth}: {len(reports)} runs")
    for r in reports:
        print(f"  duration {r['run'].get('durationSeconds', 0):.2f} s, status {r['run'].get('status')}")
    print("  -- geometry phases (seconds per run)")
    names = [p["name"] for p in reports[0]["run"].get("phases", [])
             if p["name"].endswith((".geometry", ".sectors", ".writePolicy", ".stores"))
             or p["name"] == "l2Segments"]
    for n in names:
        secs = []
        for r in reports:
            secs += [f"{p['seconds']:.3f}" for p in r["run"]["phases"] if p["name"] == n]
        status = [p["status"] for p in reports[0]["run"]["phases"] if p["name"] == n][0]
        print(f"  {n:28s} {' '.join(secs):30s} {status}")
    print("  -- attributes (identical across runs?)")
    for element, attrs in reports[0]["memory"].items():
        for k in keys:
            if k not in attrs or k not in geometry and k not in ("lineSize", "size", "segmentSize"):
                continue
            vals = [r["memory"].get(element, {}).get(k, {}).get("value") for r in reports]
            same = all(json.dumps(v) == json.dumps(vals[0]) for v in vals)
            shown = vals[0] if vals[0] is not None else "(none) " + \
                reports[0]["memory"][element][k].get("reason", "")[:110]
            print(f"  {element}.{k:18s} {'identical' if same else 'DIFFER ' + json.dumps(vals)[:80]:10s} {shown}")
    print("  -- near L2 segments (compute.nearL2Segments)")
    for r in reports:
        a = r["compute"].get("nearL2Segments", {})
        ev = a.get("evidence") or {}
        print(f"  {a.get('value')} conf {a.get('confidence')} segmentOfGpc {ev.get('segmentOfGpc')} "
              f"groups {ev.get('groups')} {a.get('reason', '')[:120]}")
    print("  -- store tests (evidence of the first run)")
    for element in ("l1", "l2"):
        for k in ("writeAllocate", "writePolicy"):
            ev = reports[0]["memory"].get(element, {}).get(k, {}).get("evidence")
            print(f"  {element}.{k}: {json.dumps(ev)}")
    print("  -- evidence of the first run")
    for element, attrs in reports[0]["memory"].items():
        a = attrs.get("associativity") or {}
        ev = a.get("evidence") or (attrs.get("indexFunction") or {}).get("evidence")
        if ev:
            print(f"  {element}: linesAtStride {json.dumps(ev.get('linesAtStride'))}")
            print(f"  {element}: hitMiss {json.dumps(ev.get('hitMiss'))}")
        rp = (attrs.get("replacementPolicy") or {}).get("evidence")
        if rp:
            print(f"  {element}: victims {json.dumps(rp.get('experiments'))[:600]}")
PY
echo "== exit codes and wall times" >> "$out/summary.txt"
cat "$out/exit-codes.txt" >> "$out/summary.txt"
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
cat "$out/summary.txt"
