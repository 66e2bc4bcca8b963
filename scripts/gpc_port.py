#!/usr/bin/env python3
"""GPC port sets for gpc-port.cu, and what its output says.

usage: scripts/gpc_port.py sets REPORT_JSON   prints the sets (one line for gpc-port's argument)
       scripts/gpc_port.py read PORT_CSV      reads gpc-port's output
The sets: each co-scheduling GPC (Gk), each SM pair no GPC holds (uS, S its lower SM), each GPC
with each such pair (Gk+uS), and per GPC a set of as many SMs dealt round-robin from the TPCs of
every GPC (Sk); where the report holds the layout probe's port test, its GPCs (before it placed
any unit, in its order) and its loose units instead. `read` prints each GPC's rate against its
spread set's (a ratio well under 1: a GPC-level bound), then for each unplaced pair what it adds to
each GPC's rate beside its own rate alone: where a GPC's port bounds the rate, the pair adds little
to its own GPC and its full rate to the others.
"""
import csv
import json
import sys

from report_gpcs import find_gpcs, port_test


def sets(report_path):
    report = json.load(open(report_path))
    gpcs, units = port_test(report)
    if gpcs:  # the GPCs before the port test placed the units, in its order
        pairs = [sorted(u) for u in units]
    else:
        gpcs = [sorted(g) for g in find_gpcs(report)]
        sms = (report.get("compute", {}).get("smCount") or {}).get("value") or 0
        placed = {s for g in gpcs for s in g}
        top = max([s for g in gpcs for s in g] + [sms - 1, -1])
        pairs = [[s, s + 1] for s in range(0, top + 1, 2)
                 if s not in placed or s + 1 not in placed]
    tpcs = [[g[i:i + 2] for i in range(0, len(g), 2)] for g in gpcs]
    dealt = [t for i in range(max(map(len, tpcs), default=0)) for ts in tpcs if i < len(ts)
             for t in [ts[i]]]
    out = [f"G{k}=" + ",".join(map(str, g)) for k, g in enumerate(gpcs)]
    out += [f"u{p[0]}=" + ",".join(map(str, p)) for p in pairs]
    out += [f"G{k}+u{p[0]}=" + ",".join(map(str, g + p)) for k, g in enumerate(gpcs) for p in pairs]
    for k, g in enumerate(gpcs):
        spread = [s for t in dealt for s in t][:len(g)]
        out.append(f"S{k}=" + ",".join(map(str, spread)))
    print(";".join(out))


def read(path):
    rate = {row["label"]: float(row["gbps"]) for row in csv.DictReader(open(path))}
    gpcs = sorted({k.split("+")[0] for k in rate if k.startswith("G")}, key=lambda k: int(k[1:]))
    for g in gpcs:
        spread = rate.get("S" + g[1:])
        ratio = f"{rate[g] / spread:.2f}" if spread else "-"
        print(f"{g}: {rate[g]:.0f} GB/s; spread set {spread or 0:.0f}; ratio {ratio}")
    for u in sorted((k for k in rate if k.startswith("u")), key=lambda k: int(k[1:])):
        gains = sorted((rate.get(f"{g}+{u}", 0) - rate[g], g) for g in gpcs)
        cells = " ".join(f"{g}:{gain:+.0f}" for gain, g in gains)
        print(f"{u} alone {rate[u]:.0f} GB/s; added to each GPC: {cells}")


if __name__ == "__main__":
    (sets if sys.argv[1] == "sets" else read)(sys.argv[2])
