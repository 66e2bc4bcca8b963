#!/usr/bin/env python3
"""The layout probe's GPC port test against scripts/experiments/gpc-port.cu on the same SM sets.

usage: scripts/gpc_port_check.py DIR
DIR holds TOOL-N.json (gputopo --depth full --only layout reports, TOOL gputopo or gputopo-before)
and exp-N.csv (gpc-port's output on `gpc_port.py sets` of gputopo-1.json). Prints each run's
gpcCount, then for each GPC of the port test its rate alone in every run of each (GB/s), then for
each loose unit its ratio with each GPC (the GPC with the unit over the GPC alone) in the first
run of each, beside (n + k) / n, what a unit with a path of its own would give.
"""
import csv
import json
import re
import sys
from pathlib import Path

from report_gpcs import find_count, port_test


def runs(folder, pattern):
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := re.fullmatch(pattern, p.name))]
    return [p for _, p in sorted(found)]


def cells(values):
    return " ".join(f"{v:7.0f}" if v is not None else "      -" for v in values)


def main(folder):
    tools = {}
    for tool in ("gputopo", "gputopo-before"):
        for path in runs(folder, re.escape(tool) + r"-(\d+)\.json"):
            try:
                tools.setdefault(tool, []).append(json.load(open(path)))
            except (OSError, ValueError) as e:
                print(f"{path.name}: no report ({e})")
    exps = [{r["label"]: float(r["gbps"]) for r in csv.DictReader(open(p))}
            for p in runs(folder, r"exp-(\d+)\.csv")]
    gpcs, units = port_test(tools["gputopo"][0]) if tools.get("gputopo") else ([], [])
    for tool, reports in tools.items():
        for i, r in enumerate(reports, 1):
            count = find_count(r)
            placed = [u.get("gpc") for u in
                      count.get("evidence", {}).get("portPlacement", {}).get("units", [])]
            per = (r.get("compute", {}).get("smsPerGpc") or {}).get("value")
            print(f"{tool} run {i}: gpcCount {count.get('value')} "
                  f"(confidence {count.get('confidence')}), smsPerGpc {per}, units' GPCs {placed}")
    if not gpcs:
        print("no port test in gputopo-1.json: nothing to compare")
        return
    print("GPC alone, GB/s: " + ", ".join(f"{t} runs" for t in tools) + ", experiment runs")
    for k, g in enumerate(gpcs):
        row = []
        for reports in tools.values():
            rates = [find_count(r).get("evidence", {}).get("portPlacement", {}).get("gpcGbps", [])
                     for r in reports]
            row.append(cells(x[k] if k < len(x) else None for x in rates))
        row.append(cells(e.get(f"G{k}") for e in exps))
        print(f"G{k} ({len(g):2d} SMs {g[0]},{g[1]},...): " + " | ".join(row))
    for j, u in enumerate(units):
        print(f"unit {u}: ratio with each GPC; (n + k) / n: "
              + cells(100 * (len(g) + len(u)) / len(g) for g in gpcs) + " %")
        for tool, reports in tools.items():
            pp = find_count(reports[0]).get("evidence", {}).get("portPlacement", {})
            ratio = pp.get("units", [{}] * len(units))[j].get("ratioWithEachGpc", [])
            print(f"  {tool} run 1: " + cells(100 * x for x in ratio) + " %")
        if exps:
            e = exps[0]
            print("  experiment run 1: " + cells(
                100 * e[f"G{k}+u{u[0]}"] / e[f"G{k}"] if e.get(f"G{k}") and f"G{k}+u{u[0]}" in e
                else None for k in range(len(gpcs))) + " %")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
