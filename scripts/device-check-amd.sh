#!/usr/bin/env bash
# On a machine with an AMD Instinct GPU (CDNA2: MI210, MI250X; CDNA1: MI100): the first validation
# of gputopo's HIP backend, in one command. Nothing of it has run on AMD hardware before
# (docs/amd.md).
#   - rocminfo and rocm-smi as the reference (CUs, L2, name, clocks),
#   - gputopo info (text, JSON), RUNS full discoveries (JSON, wall time each), one with --raw,
#   - a summary: each AMD element against the published figures (ROCm's GPU specifications,
#     MT4G's MI210 measurements) and against rocminfo, and the runs against each other.
# usage: scripts/device-check-amd.sh OUT_DIR
# BIN_DIR (default .devbin) holds a gputopo built on that machine with hipcc found
# (cmake --preset default -DGPUTOPO_HIP_ARCHS="gfx90a;gfx908"; the configure log says
# "HIP backend for ..."). Everything lands in OUT_DIR and OUT_DIR.tgz. Changes nothing on the GPU.
set -uo pipefail
out=${1:?usage: device-check-amd.sh OUT_DIR}
bin=${BIN_DIR:-.devbin}
runs=${RUNS:-3}
gputopo=$bin/gputopo
mkdir -p "$out"

rocminfo > "$out/rocminfo.txt" 2>&1
rocm-smi --showproductname --showclocks --showmeminfo vram --showuse > "$out/rocm-smi.txt" 2>&1
"$gputopo" info > "$out/info.txt" 2> "$out/info.err"; echo "info exit $?" >> "$out/exit-codes.txt"
"$gputopo" info --json -o "$out/info.json" > /dev/null 2>> "$out/info.err"
for i in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  extra=()
  [ "$i" -eq 1 ] && extra=(--raw "$out/raw")
  "$gputopo" --json -o "$out/run$i.json" "${extra[@]}" > /dev/null 2> "$out/run$i.err"
  rc=$?
  echo "run$i exit $rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/exit-codes.txt"
done
"$gputopo" --format mt4g -o "$out/mt4g.json" > /dev/null 2> "$out/mt4g.err"
echo "mt4g exit $?" >> "$out/exit-codes.txt"

python3 - "$out" "$runs" > "$out/summary.txt" 2>&1 <<'PY'
import json, re, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(p):
    try: return json.load(open(p))
    except Exception as e: print(f"cannot read {p}: {e}"); return None
def val(r, el, key):
    a = (r or {}).get("memory", {}).get(el, {}).get(key)
    return a.get("value") if isinstance(a, dict) else None
info = load(f"{out}/info.json")
rocm = open(f"{out}/rocminfo.txt").read()
# The first GPU agent's block (rocminfo lists the CPUs first).
blocks = [b for b in re.split(r"\n\*+\s*\nAgent \d+", rocm) if re.search(r"Name:\s+gfx", b)]
rocm = blocks[0] if blocks else rocm
gpu = re.search(r"Name:\s+(gfx9\w+)", rocm)
cus = re.search(r"Compute Unit:\s+(\d+)", rocm)
l2 = re.search(r"L2:\s+(\d+)\s*\(?\w*\)?\s*KB", rocm)
print("== info against rocminfo (simulated:",
      (info or {}).get("device", {}).get("simulated", {}).get("value"), ")")
print(" target", gpu.group(1) if gpu else "?", "| CUs rocminfo", cus.group(1) if cus else "?",
      "gputopo", (info or {}).get("compute", {}).get("smCount", {}).get("value"))
print(" L2 rocminfo KB", l2.group(1) if l2 else "?", "gputopo B",
      (info or {}).get("compute", {}).get("l2Size", {}).get("value"))
# Published figures (docs/amd.md): CDNA2 vector L1 16 KiB (64 B lines), scalar L1 16 KiB per 2 CUs
# (64 B), LDS 64 KiB, L2 8 MiB per GCD (128 B lines); MT4G MI210 latencies vL1 125, sL1 50, L2 310,
# LDS 61, HBM 748 cycles.
expect = [("l1", "size", 16384), ("l1", "lineSize", 64), ("scalarL1", "size", 16384),
          ("scalarL1", "lineSize", 64), ("scalarL1", "sharedBySms", 2), ("l2", "capacity", 8388608),
          ("l2", "lineSize", 128), ("l1", "latency", 125), ("scalarL1", "latency", 50),
          ("l2", "nearLatency", 310), ("lds", "latency", 61), ("dram", "latency", 748)]
results = [load(f"{out}/run{i}.json") for i in range(1, runs + 1)]
print("== each run against the published CDNA2 figures (sizes: within 5 %; latencies: the order)")
for el, key, ref in expect:
    got = [val(r, el, key) for r in results]
    nums = [g for g in got if isinstance(g, (int, float))]
    ok = nums and all(abs(g - ref) <= 0.05 * ref for g in nums) if key not in ("latency", "nearLatency") \
        else nums and all(0.5 * ref <= g <= 2 * ref for g in nums)
    print(f" {'ok  ' if ok else 'LOOK'} {el}.{key}: {got} (published {ref})")
print("== runs against each other (discrete keys equal, sizes within 1 %)")
for el, key, _ in expect:
    got = [val(r, el, key) for r in results]
    nums = [g for g in got if isinstance(g, (int, float))]
    same = len(nums) == len(got) and nums and max(nums) - min(nums) <= 0.01 * max(abs(max(nums)), 1)
    print(f" {'ok  ' if same else 'LOOK'} {el}.{key}: {got}")
for r in results:
    for w in (r or {}).get("warnings", []): print(" warning:", w)
PY
cat "$out/exit-codes.txt" >> "$out/summary.txt"
tar -czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
cat "$out/summary.txt"
