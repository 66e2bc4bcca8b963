#!/usr/bin/env bash
# On a GPU machine: the topology side (issue 15, docs/topology.md) on real hardware.
#   - the layout probe (gputopo --only layout) three times, JSON with its evidence (clustersAtOnce,
#     occupancyFit, gpcs, uncoveredUnits, gpcOfSm, placementConfidence), one recorded with --raw
#     so that it can be replayed here (gputopo analyze);
#   - gputopo tree (compact and --full) of a full discovery, with its JSON report;
#   - gputopo list, text and JSON: each GPU's NUMA nodes and CPUs from hwloc, where the machine
#     has libhwloc.so.15 (else "hwloc not found"), and whether the binary links hwloc (it must not);
#   - gputopo -d all (every GPU and its links; on one GPU a 1 x 1 peer matrix with the host link,
#     pinned and pageable copies, latency and the NUMA dependence measured), text and JSON, one
#     recorded with --raw (DIR/gpuN);
#   - a summary of the GPC evidence: counts measured and predicted, the structures that match;
#     the host section.
# usage: scripts/device-topology.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo built with the `device` preset
# (cmake --preset device && cmake --build --preset device -j2 && cp build/device/src/cli/gputopo .devbin/).
# Everything lands in OUT_DIR within about four minutes; a summary is printed last. Changes
# nothing about the GPU (no clocks, no NVLink multicast).
set -uo pipefail
out=${1:?usage: device-topology.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
gputopo=$bin/gputopo
mkdir -p "$out"

nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1
nvidia-smi topo -m > "$out/nvidia-smi-topo.txt" 2>&1
ldd "$gputopo" > "$out/ldd.txt" 2>&1
if grep -qi hwloc "$out/ldd.txt"; then
  echo "LINKS hwloc (must not)" > "$out/ldd-check.txt"
else
  echo "does not link hwloc" > "$out/ldd-check.txt"
fi
ls /usr/lib/x86_64-linux-gnu/libhwloc.so* /usr/lib64/libhwloc.so* > "$out/hwloc-libs.txt" 2>&1

timeout 60 "$gputopo" list > "$out/list.txt" 2> "$out/list.err"
echo "list exit $?" >> "$out/exit-codes.txt"
timeout 60 "$gputopo" list --json > "$out/list.json" 2>> "$out/list.err"
echo "list --json exit $?" >> "$out/exit-codes.txt"

for i in 1 2 3; do
  start=$(date +%s%N)
  if [ "$i" = 1 ]; then raw=(--raw "$out/layout-raw"); else raw=(); fi
  timeout 120 "$gputopo" --only layout --json -o "$out/layout$i.json" "${raw[@]}" \
    > /dev/null 2> "$out/layout$i.err"
  echo "layout$i exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
done
[ -d "$out/layout-raw" ] && tar -czf "$out/layout-raw.tgz" -C "$out" layout-raw && rm -rf "$out/layout-raw"

timeout 300 "$gputopo" tree -o "$out/tree-run.json" > "$out/tree.txt" 2> "$out/tree.err"
echo "tree exit $?" >> "$out/exit-codes.txt"
timeout 120 "$gputopo" tree --full --only layout,l1,l2,shared > "$out/tree-full.txt" 2> "$out/tree-full.err"
echo "tree --full exit $?" >> "$out/exit-codes.txt"

timeout 300 "$gputopo" -d all --only layout --json -o "$out/host.json" --raw "$out/host-raw" \
  > /dev/null 2> "$out/host.err"
echo "-d all exit $?" >> "$out/exit-codes.txt"
[ -d "$out/host-raw" ] && tar -czf "$out/host-raw.tgz" -C "$out" host-raw && rm -rf "$out/host-raw"
timeout 300 "$gputopo" -d all --only layout > "$out/host.txt" 2> "$out/host-text.err"
echo "-d all (text) exit $?" >> "$out/exit-codes.txt"
numactl --hardware > "$out/numactl.txt" 2>&1 || cat /sys/devices/system/node/online > "$out/numactl.txt" 2>&1

python3 - "$out" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
out = sys.argv[1]
for i in (1, 2, 3):
    try:
        c = json.load(open(f"{out}/layout{i}.json"))["compute"]
    except Exception as e:  # noqa: BLE001
        print(f"layout{i}: no report ({e})")
        continue
    g = c.get("gpcCount", {})
    ev = g.get("evidence") or {}
    print(f"layout{i}: gpcCount {g.get('value')} smsPerGpc {c.get('smsPerGpc', {}).get('value')}"
          f" tpcCount {c.get('tpcCount', {}).get('value')}")
    print(f"  clustersAtOnce {ev.get('clustersAtOnce')}")
    print(f"  predicted {ev.get('predictedClustersAtOnce')}  fit {ev.get('occupancyFit', {}).get('matching')}"
          f" of {ev.get('occupancyFit', {}).get('structuresTried')}")
    print(f"  gpc sizes {[len(x) for x in ev.get('gpcs', [])]} uncovered units {ev.get('uncoveredUnits')}"
          f" interval {ev.get('gpcCountInterval')}")
    conf = ev.get("placementConfidence") or []
    print(f"  SMs placed {sum(1 for x in conf if x > 0)} of {len(conf)}")
    if g.get("reason"):
        print(f"  reason: {g['reason']}")
try:
    for d in json.load(open(f"{out}/list.json"))["devices"]:
        print(f"GPU {d['index']} {d['name']} PCI {d['pciBusId']} locality {d.get('locality')}")
except Exception as e:  # noqa: BLE001
    print(f"list: no JSON ({e})")
try:
    h = json.load(open(f"{out}/host.json"))["host"]
    print(f"host: {h['gpuCount']} GPU(s), NUMA nodes {h['numaNodes']}, peers {len(h['peers'])},"
          f" outliers {h['outliers']}")
    for g in h["gpus"]:
        print(f"  GPU {g['index']} {g['name']} {g['status']} locality {g['locality']}")
    def v(x):
        if x.get("value") is None:
            return f"not established: {x.get('reason')}"
        lo, hi = x.get("interval", [x["value"], x["value"]])
        return f"{x['value']:.3g} {x['unit']} ({lo:.3g}-{hi:.3g})"
    for l in h["hostLinks"]:
        print(f"  GPU {l['gpu']} (node {l['numaNode']}): pinned H2D {v(l['pinnedH2dGBps'])},"
              f" D2H {v(l['pinnedD2hGBps'])}; pageable H2D {v(l['pageableH2dGBps'])},"
              f" D2H {v(l['pageableD2hGBps'])}; latency {v(l['latencyUs'])}")
        print(f"    NUMA: {l['numa']}")
    for p in h["peers"]:
        print(f"  peer {p['from']}->{p['to']}: {p.get('link')} read {v(p.get('readGBps', {}))}")
except Exception as e:  # noqa: BLE001
    print(f"-d all: no host document ({e})")
PY
cat "$out/ldd-check.txt" "$out/exit-codes.txt" "$out/summary.txt"
echo "--- tree"
cat "$out/tree.txt"
echo "--- host section (-d all)"
sed -n '/^Host: /,$p' "$out/host.txt"
