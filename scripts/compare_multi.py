#!/usr/bin/env python3
"""Summarises scripts/device-multi.sh's output directory: `gputopo -d all` against the sum of the
single-GPU runs (wall time), each GPU's attributes under -d all against the same GPU run alone,
and the peer matrix and host links against nvidia-smi, peer_reference and PyTorch.

usage: compare_multi.py OUT_DIR
Exit status 1 when a discrete attribute differs between -d all and the single runs, or when the
link type or count disagrees with nvidia-smi."""
import csv
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import compare_reports  # noqa: E402


def walls(out):
    times = {}
    for line in open(f"{out}/exit-codes.txt"):
        m = re.match(r"(\S+?)(\d*) exit (\d+) wall (\d+) ms", line)
        if m:
            times.setdefault(m.group(1), []).append((int(m.group(3)), int(m.group(4)) / 1000))
    return times


def wall_times(out, gpus):
    t = walls(out)
    alone = [sum(t[f"gpu{d}-run"][i][1] for d in range(gpus)) for i in range(len(t["all"]))]
    print("== wall time, whole process (s)")
    print(f"-d all runs:              {[w for _, w in t['all']]} (exit {[c for c, _ in t['all']]})")
    for d in range(gpus):
        print(f"-d {d} runs:               {[w for _, w in t[f'gpu{d}-run']]}")
    print(f"sum of the single runs:   {[round(a, 2) for a in alone]}")
    ratio = statistics.median(w for _, w in t["all"]) / statistics.median(alone)
    print(f"-d all / sum (medians):   {ratio:.2f}")


def per_gpu(out, hosts, gpus):
    failed = False
    for d in range(gpus):
        alone = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/gpu{d}-run*.json"))]
        within = [h["gpus"][d] for h in hosts]
        print(f"== GPU {d}: {len(within)} runs under -d all, then {len(alone)} alone")
        failed |= compare_reports(within + alone)
    return failed


def nvidia_smi_links(out):
    """NVLink count per ordered pair from `nvidia-smi topo -m` (NV<n>), else the matrix word."""
    text = open(f"{out}/nvidia-smi-topo.txt").read().split("== topo -p2p")[0]
    rows = [l.split() for l in text.splitlines() if re.match(r"^\s*GPU\d+\s", l)]
    links = {}
    for r in rows:
        i = int(r[0][3:])
        for j, cell in enumerate(r[1:1 + len(rows)]):
            if i != j:
                links[(i, j)] = cell
    return links


def reference(out, name):
    rows = {}
    try:
        for r in csv.DictReader(open(f"{out}/{name}")):
            rows[(r["what"], int(r["from"]), int(r["to"]))] = float(r["value"])
    except (OSError, ValueError, KeyError):
        pass
    return rows


def value(a):
    return a.get("value") if isinstance(a, dict) else None


def span(values):
    values = [v for v in values if v is not None]
    if not values:
        return "not established"
    lo, hi = min(values), max(values)
    return f"{lo:.4g}" if lo == hi else f"{lo:.4g}-{hi:.4g}"


def peers(out, hosts):
    failed = False
    smi = nvidia_smi_links(out)
    ref, torch = reference(out, "peer-reference.csv"), reference(out, "torch-copy.csv")
    print("== peer matrix: gputopo (range over the -d all runs) against nvidia-smi, peer_reference"
          " and PyTorch")
    for k, p in enumerate(hosts[0]["host"]["peers"]):
        i, j = p["from"], p["to"]
        link = p.get("link", {})
        ours = f"NV{link['count']}" if link.get("type") == "NVLink" else link.get("type", "?")
        agree = ours == smi.get((i, j)) or (ours == "PCIe" and not smi.get((i, j), "").startswith("NV"))
        failed |= not agree
        print(f"{i}->{j}: link {ours} (NVLink generation {link.get('generation')}), nvidia-smi"
              f" {smi.get((i, j))}: {'agree' if agree else 'DIFFER'}; access {p.get('access')},"
              f" atomics {p.get('atomics')}")
        for key, ref_keys in (("readGBps", ["peer.ceReadGBps", "peer.smReadGBps"]),
                              ("writeGBps", ["peer.ceWriteGBps", "peer.smWriteGBps"]),
                              ("bidirectionalGBps", ["peer.ceBidirectionalGBps"]),
                              ("latencyUs", ["peer.loadLatencyNs"])):
            ours = span(value(h["host"]["peers"][k].get(key)) for h in hosts)
            theirs = ", ".join(f"{r.split('.')[1]} {ref[(r, i, j)]:.4g}" for r in ref_keys
                               if (r, i, j) in ref)
            if key == "readGBps" and ("torch.copyReadGBps", i, j) in torch:
                theirs += f", torch copy {torch[('torch.copyReadGBps', i, j)]:.4g}"
            print(f"    {key:<18} gputopo {ours:<14} reference: {theirs}")
    return failed


def host_links(out, hosts):
    ref = reference(out, "peer-reference.csv")
    print("== host links: gputopo (range over the -d all runs) against peer_reference")
    for k, l in enumerate(hosts[0]["host"]["hostLinks"]):
        g = l["gpu"]
        cells = []
        for key in ("pinnedH2dGBps", "pinnedD2hGBps", "pageableH2dGBps", "pageableD2hGBps",
                    "latencyUs"):
            cells.append(f"{key} {span(value(h['host']['hostLinks'][k].get(key)) for h in hosts)}")
        print(f"GPU {g} (NUMA node {l.get('numaNode')}): " + "; ".join(cells))
        print(f"    reference pinned H2D {ref.get(('host.pinnedH2dGBps', g, -1))},"
              f" D2H {ref.get(('host.pinnedD2hGBps', g, -1))}; NUMA {l.get('numa')}")


def main(out):
    hosts = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/host[0-9]*.json"))]
    if not hosts:
        print("no -d all host document")
        return 1
    gpus = hosts[0]["host"]["gpuCount"]
    print(f"== {gpus} GPUs: {[g['name'] for g in hosts[0]['host']['gpus']]};"
          f" identical groups {hosts[0]['host']['identical']}; outliers"
          f" {[h['host']['outliers'] for h in hosts]}")
    wall_times(out, gpus)
    failed = per_gpu(out, hosts, gpus)
    failed |= peers(out, hosts)
    host_links(out, hosts)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
