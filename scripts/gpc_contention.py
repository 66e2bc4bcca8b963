#!/usr/bin/env python3
"""Reads gpc-contention output: which victims each aggressor group slows, by victim group.

usage: scripts/gpc_contention.py DIR
DIR holds contention.csv.gz (round,sm,aggressor,min,median), groups.txt (the aggressor groups,
';' between groups; round g + 1 used group g) and report.json or gpc-tpc-same-call.json (the
co-scheduling GPCs in compute.gpcCount's evidence; SMs in none form groups of their TPC pair).
Each SM's slowdown in a round is its median latency minus its median over the aggressor rounds
(round 0, no aggressors, is printed but not used as the reference). Prints, per round, the mean
slowdown of each victim group with its standard error, then for each SM that no GPC holds the
placed GPC whose slowdown over the rounds it follows most closely (Pearson r over the rounds
where both are victims) and the runner-up. Rounds whose aggressors are a GPC without some of its
SMs (the witnesses) test a GPC-level path: for each unplaced SM and each such round, its slowdown
beside the witnesses' and the median slowdown of the other GPCs' victims ("rest").
"""
import csv
import gzip
import json
import statistics as st
import sys
from collections import defaultdict
from pathlib import Path

from report_gpcs import find_gpcs


def load(folder):
    rows = csv.DictReader(gzip.open(folder / "contention.csv.gz", "rt"))
    latency = defaultdict(dict)
    for r in rows:
        latency[int(r["round"])][int(r["sm"])] = float(r["median"])
    text = (folder / "groups.txt").read_text().strip()
    groups = [[int(s) for s in g.split(",")] for g in text.split(";")]
    report = folder / "report.json"
    if not report.exists():
        report = folder / "gpc-tpc-same-call.json"
    gpcs = find_gpcs(json.loads(report.read_text()))
    return latency, groups, gpcs


def pearson(a, b):
    if len(a) < 3 or st.pstdev(a) == 0 or st.pstdev(b) == 0:
        return float("nan")
    ma, mb = st.mean(a), st.mean(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    return cov / (len(a) * st.pstdev(a) * st.pstdev(b))


def print_witness_rounds(slow, groups, gpcs, unplaced):
    for r, group in enumerate(groups, start=1):
        aggressors = set(group)
        owner = [i for i, g in enumerate(gpcs) if aggressors < set(g)]
        if not owner or r not in slow:
            continue
        k = owner[0]
        witnesses = [sm for sm in gpcs[k] if sm not in aggressors and sm in slow[r]]
        others = [v for sm, v in slow[r].items() if sm not in gpcs[k] and sm not in unplaced]
        if not witnesses or not others:
            continue
        line = (f"witness round {r} (G{k} less {len(witnesses)}): witnesses "
                f"{st.mean(slow[r][w] for w in witnesses):+.1f}, rest {st.median(others):+.1f}")
        cells = [f"{sm}:{slow[r][sm]:+.1f}" for sm in unplaced if sm in slow[r]]
        print(line + "; unplaced " + " ".join(cells))


def main():
    latency, groups, gpcs = load(Path(sys.argv[1]))
    rounds = sorted(r for r in latency if r > 0)
    sms = sorted({sm for r in latency.values() for sm in r})
    ref = {sm: st.median([latency[r][sm] for r in rounds if sm in latency[r]]) for sm in sms}
    slow = {r: {sm: v - ref[sm] for sm, v in latency[r].items()} for r in latency}
    placed = {sm: f"G{i}" for i, g in enumerate(gpcs) for sm in g}
    victim_group = {sm: placed.get(sm, f"u{sm - sm % 2}") for sm in sms}
    names = sorted(set(victim_group.values()), key=lambda n: (n[0] == "u", int(n[1:])))
    print("round aggressors " + " ".join(f"{n:>11}" for n in names))
    means = defaultdict(dict)
    for r in sorted(latency):
        by = defaultdict(list)
        for sm, v in slow[r].items():
            by[victim_group[sm]].append(v)
        cells = []
        for n in names:
            v = by.get(n, [])
            if len(v) >= 2:
                means[n][r] = st.mean(v)
                cells.append(f"{st.mean(v):+6.1f}±{st.stdev(v) / len(v) ** 0.5:3.1f}")
            else:
                cells.append(f"{'agg':>11}")
        agg = "none" if r == 0 else ",".join(map(str, groups[r - 1][:4])) + "…"
        print(f"{r:5d} {agg:>10} " + " ".join(cells))
    unplaced = [sm for sm in sms if sm not in placed]
    print_witness_rounds(slow, groups, gpcs, unplaced)
    for sm in unplaced:
        fits = []
        for g in (n for n in names if n.startswith("G")):
            common = [r for r in rounds if r in means[g] and sm in slow[r]]
            fits.append((pearson([slow[r][sm] for r in common], [means[g][r] for r in common]), g))
        fits.sort(reverse=True)
        print(f"SM {sm}: follows {fits[0][1]} r={fits[0][0]:.2f}; next {fits[1][1]} "
              f"r={fits[1][0]:.2f}")


if __name__ == "__main__":
    main()
