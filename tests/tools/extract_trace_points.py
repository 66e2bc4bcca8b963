#!/usr/bin/env python3
"""Extracts the sweeps the analysis tests read from the recorded GPU traces.

tests/data/traces/<gpu>/*.csv.gz (written by scripts/device-check.sh) are gzipped; CI has no
zlib, so the analysis tests read plain CSV files made from them by this script (standard library
only; run once after new traces are recorded):

    python3 tests/tools/extract_trace_points.py

Each output row is one sweep point: space,x,overhead_cycles,cycles (space-separated, raw as
recorded: overhead included). Size sweeps keep every k-th load of a point with more than `LOADS`
loads, so that the kept loads still cover the whole chased array (which loads miss depends on
where they are); stride sweeps keep every load (a regular subsample would alias with the stride).
"""
import csv
import gzip
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
LOADS = {"l1_size_sweep_carveout0": 512, "l2_sweep": 512, "stride_sweep": None}
SWEEPS = [
    ("l1_size_sweep_carveout0", "array_bytes"),
    ("l2_sweep", "array_bytes"),
    ("stride_sweep", "stride_bytes"),
]


def main():
    traces = os.path.join(ROOT, "traces")
    out_dir = os.path.join(ROOT, "analysis", "traces")
    os.makedirs(out_dir, exist_ok=True)
    for gpu in sorted(os.listdir(traces)):
        if not os.path.isdir(os.path.join(traces, gpu)):
            continue
        for name, x_key in SWEEPS:
            src = os.path.join(traces, gpu, name + ".csv.gz")
            if not os.path.exists(src):
                continue
            with gzip.open(src, "rt") as f:
                rows = list(csv.DictReader(f))
            dst = os.path.join(out_dir, f"{gpu}_{name}.csv")
            with open(dst, "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["space", "x", "overhead_cycles", "cycles"])
                for r in rows:
                    cycles = r["cycles"].split()
                    if LOADS[name]:
                        cycles = cycles[:: -(-len(cycles) // LOADS[name])]
                    w.writerow([r["space"], r[x_key], r["overhead_cycles"], " ".join(cycles)])
            print(dst, len(rows), "points")


if __name__ == "__main__":
    main()
