#!/usr/bin/env python3
"""Holds gputopo's latencies and bandwidths against chain_reference's independent measurements of
the same GPU: a markdown table, one row per value, with the relative gap.

usage: compare_reference.py REFERENCE.csv RUN.json [RUN.json ...]

REFERENCE.csv is what bench/device/chain_reference prints (what,parameter,value,unit). The far-L2
reference is the median of the reference's chain plateau between the near step and the L2 size
(footprints from 0.62 to 0.9 of the API L2). Exit status 1 when a latency is more than 3 % off."""
import json
import statistics
import sys


def reference(path):
    rows = {}
    curve = []
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) != 4 or parts[0] == "what":
            continue
        what, param, value, unit = parts
        if what == "l2chain":
            curve.append((float(param), float(value)))
        else:
            rows.setdefault(what, []).append((float(param), float(value)))
    return rows, curve


def value(report, element, key):
    a = report.get("memory", {}).get(element, {}).get(key, {})
    v = a.get("value")
    return v if isinstance(v, (int, float)) else None


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    rows, curve = reference(argv[1])
    runs = [json.load(open(p)) for p in argv[2:]]
    l2 = value(runs[0], "l2", "apiSize") or value(runs[0], "l2", "size") or 0

    def ref(what, param=None, pick=max):
        values = [v for p, v in rows.get(what, []) if param is None or p == param]
        return pick(values) if values else None

    far = [v for s, v in curve if l2 and 0.62 * l2 <= s <= 0.9 * l2]
    near = [v for s, v in curve if l2 and s <= 0.3 * l2]
    l1 = ref("latency.l1")
    checks = [
        ("l1", "latency", l1, "cycles", True),
        ("readOnly", "latency", ref("latency.readOnly"), "cycles", True),
        ("texture", "latency", ref("latency.texture"), "cycles", True),
        ("constantL1", "latency", ref("latency.constant", 1024), "cycles", True),
        ("constantL15", "latency", ref("latency.constant", 16384), "cycles", True),
        ("shared", "latency", ref("latency.shared"), "cycles", True),
        ("l1", "missPenalty", (ref("latency.l1miss") or 0) - (l1 or 0) if l1 else None,
         "cycles", True),
        ("l2", "nearLatency", statistics.median(near) if near else None, "cycles", True),
        ("l2", "farLatency", statistics.median(far) if far else None, "cycles", True),
        ("dram", "latency", ref("latency.dram"), "cycles", True),
        ("l2", "readBandwidth", (ref("bandwidth.l2read") or 0) * 1e3 or None, "GB/s", False),
        ("l2", "writeBandwidth", (ref("bandwidth.l2write") or 0) * 1e3 or None, "GB/s", False),
        ("dram", "readBandwidth", (ref("bandwidth.dramread") or 0) * 1e3 or None, "GB/s", False),
        ("l1", "readBytesPerClkPerSm", ref("bandwidth.l1.bytesPerClkPerSm"), "B/clk", False),
        ("shared", "readBytesPerClkPerSm", ref("bandwidth.shared.bytesPerClkPerSm"), "B/clk",
         False),
    ]
    failed = False
    print("| value | gputopo (runs) | independent chain / stream | gap |")
    print("|---|---|---|---|")
    for element, key, expected, unit, bounded in checks:
        got = [value(r, element, key) for r in runs]
        got = [g for g in got if g is not None]
        shown = ", ".join(f"{g:.1f}" for g in got) if got else "not established"
        if expected is None or not got:
            print(f"| {element}.{key} | {shown} | - | - |")
            continue
        gap = max((g - expected) / expected for g in got) if got else 0
        low = min((g - expected) / expected for g in got)
        worst = gap if abs(gap) >= abs(low) else low
        flag = " **over 3 %**" if bounded and abs(worst) > 0.03 else ""
        failed |= bool(flag)
        print(f"| {element}.{key} | {shown} {unit} | {expected:.1f} {unit} | {worst * 100:+.1f} %{flag} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
