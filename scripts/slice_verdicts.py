#!/usr/bin/env python3
"""Checks reduction-contention verdicts against Nsight Compute's per-slice counts.

Reads an ncu --csv run of gputopo's reduction kernel (or of l2-slice-classes) with the metrics
lts__t_requests_srcunit_tex_op_red.{max,sum} and gpu__time_duration.sum, each launch one timed
set of lines. A set's size is its reductions over those of one line (WARPS x ROUNDS), and
max x size / sum is 0.5 where every line is counted at its own instances (each line half on each
L2 partition) and 1 or more where two lines are counted at one. Prints, by set kind and count,
how many sets and their kernel times (us), and how many sets over sqrt(2) times the one-line
time (read as shared) had their lines counted apart (the contradictions).

usage: slice_verdicts.py NCU_CSV [WARPS] [ROUNDS]   (default 2112 warps: 132 SMs; 8 rounds)
"""
import csv
import gzip
import io
import math
import statistics
import sys
from collections import defaultdict

RED = "lts__t_requests_srcunit_tex_op_red"


def launches(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = [line for line in f if line.startswith('"')]
    values = defaultdict(dict)
    for row in csv.DictReader(io.StringIO("".join(rows))):
        values[int(row["ID"])][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return [values[i] for i in sorted(values)]


def main():
    path = sys.argv[1]
    warps = int(sys.argv[2]) if len(sys.argv) > 2 else 2112
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    sets = launches(path)
    one = [v["gpu__time_duration.sum"] for v in sets
           if round(v[RED + ".sum"] / (warps * rounds)) == 1]
    t1 = statistics.median(one)
    table = defaultdict(list)
    contradictions = 0
    for v in sets:
        size = round(v[RED + ".sum"] / (warps * rounds))
        counted = round(v[RED + ".max"] * size / v[RED + ".sum"], 1)
        t = v["gpu__time_duration.sum"]
        table[("one line" if size == 1 else "set", counted)].append(t / 1000)
        if size > 1 and counted < 1 and t > math.sqrt(2) * t1:
            contradictions += 1
    print(f"{len(sets)} sets; one line's median {t1 / 1000:.1f} us")
    print("kind      max x size / sum  sets  least  median  most (us)")
    for (kind, counted), ts in sorted(table.items()):
        print(f"{kind:9} {counted:16} {len(ts):5} {min(ts):6.1f} {statistics.median(ts):7.1f} "
              f"{max(ts):5.1f}")
    print(f"sets read as shared whose lines were counted apart: {contradictions}")


if __name__ == "__main__":
    main()
