#!/usr/bin/env python3
"""gputopo's bandwidths against the peers run beside it by scripts/device-bandwidth.sh
(docs/results/README.md, "Bandwidth against peers").

usage: peer_ratios.py DIR

DIR holds gputopo-N.json, gpu-l2-cache-N.txt, gpu-cache-N.txt, gpu-stream-N.txt and
plain-shared-N.csv of runs N = 1, 2, 3. For each bandwidth: gputopo's value per run, the best peer
figure per run over the sizes named, and the median over the runs of their ratio."""
import csv
import glob
import json
import os
import re
import statistics
import sys


def peer_rows(path):
    """Rows of a gpu-benches table: the numbers before 'GB/s' and the first GB/s figure."""
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path, errors="replace"):
        m = re.search(r"([\d.]+) GB/s", line)
        if m and "kB" in line:
            sizes = [float(x) for x in re.findall(r"([\d.]+) kB", line)]
            rows.append((sizes, float(m.group(1))))
    return rows


def best(rows, size_index, lo_kb, hi_kb):
    xs = [gbps for sizes, gbps in rows if len(sizes) > size_index and lo_kb <= sizes[size_index] <= hi_kb]
    return max(xs) if xs else None


def stream_columns(path):
    """gpu-stream: the best of each column (init, read, scale, triad) over the block counts."""
    out = {}
    for line in open(path, errors="replace"):
        if "GB/s:" not in line:
            continue
        values = [float(x) for x in line.split("GB/s:")[1].split()]
        for name, v in zip(("init", "read", "scale", "triad"), values):
            out[name] = max(out.get(name, 0.0), v)
    return out


def plain_shared(path):
    if not os.path.exists(path):
        return None
    best_tbs = 0.0
    for row in csv.reader(open(path)):
        for cell in row:
            try:
                v = float(cell)
            except ValueError:
                continue
            if 1e4 < v < 1e5:  # GB/s figures of an SM-local stream
                best_tbs = max(best_tbs, v)
    return best_tbs or None


def main(d):
    runs = sorted(int(re.search(r"(\d+)", os.path.basename(f)).group(1))
                  for f in glob.glob(os.path.join(d, "gputopo-*.json")))
    table = {}
    for n in runs:
        m = json.load(open(os.path.join(d, f"gputopo-{n}.json")))["memory"]
        val = lambda e, k: (m.get(e, {}).get(k) or {}).get("value")
        l2c = peer_rows(os.path.join(d, f"gpu-l2-cache-{n}.txt"))
        gc = peer_rows(os.path.join(d, f"gpu-cache-{n}.txt"))
        st = stream_columns(os.path.join(d, f"gpu-stream-{n}.txt"))
        ps = plain_shared(os.path.join(d, f"plain-shared-{n}.csv"))
        # Reports before unsharedReadBandwidth gave the own-data pattern as l2.readBandwidth.
        own = "unsharedReadBandwidth" if "unsharedReadBandwidth" in m.get("l2", {}) else "readBandwidth"
        fastest = max(filter(None, [val("l2", "readBandwidth"), val("l2", "sharedReadBandwidth")]), default=None)
        l2_best = max(filter(None, [best(l2c, 1, 8192, 25600), best(gc, 0, 2048, 8192)]), default=None)
        rows = {
            "L2 read (the faster pattern)": (fastest, l2_best),
            "L2 read, every SM its own data": (val("l2", own), best(l2c, 1, 8192, 25600)),
            "L2 read, all SMs one set": (val("l2", "sharedReadBandwidth"), best(gc, 0, 2048, 8192)),
            "L1 read": (val("l1", "readBandwidth"), best(gc, 0, 16, 172)),
            "shared-memory read": (val("shared", "readBandwidth"), ps),
            "DRAM read": (val("dram", "readBandwidth"), max(st.get("read", 0), st.get("triad", 0)) or None),
            "DRAM write": (val("dram", "writeBandwidth"), st.get("init")),
            "DRAM copy": (val("dram", "copyBandwidth"), st.get("scale")),
        }
        for k, v in rows.items():
            table.setdefault(k, []).append(v)
    for k, vs in table.items():
        ratios = [a / b for a, b in vs if a and b]
        ours = [a for a, _ in vs if a]
        peers = [b for _, b in vs if b]
        fmt = lambda xs: f"{min(xs) / 1e3:.2f}-{max(xs) / 1e3:.2f}" if xs else "-"
        med = f"{statistics.median(ratios):.2f}" if ratios else "-"
        print(f"| {k} | {fmt(ours)} TB/s | {fmt(peers)} | {med} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
