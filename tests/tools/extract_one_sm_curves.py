#!/usr/bin/env python3
"""Extracts the one-SM L1-family size sweeps from the full discovery recordings.

tests/data/runs/<gpu>-discovery-raw-7c81977.tgz are `gputopo --raw` recordings of whole discovery
runs (docs/raw.md) made by gputopo 7c81977, whose size rounds chased each size once, in one place of
device memory. Their size-search rounds on SM 0 (one size per launch, 32 B stride) are the curves
the L1-family sizes were read from. This script writes each round as a plain CSV for the analysis
tests (standard library only; run once after new recordings are committed):

    python3 tests/tools/extract_one_sm_curves.py

Output: tests/data/analysis/one_sm_l1/<gpu>-<call>-<space>.csv, one row per array size:
array_bytes,miss_fraction,loads. A load counts as a miss above MISS_CYCLES raw cycles: L1, texture
and read-only hits read 34-95 cycles on H100/H200, L2 hits 250 and more.
"""
import csv
import io
import json
import os
import tarfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
MISS_CYCLES = 150
SPACES = ("l1", "texture", "readOnly")


def main():
    out_dir = os.path.join(ROOT, "analysis", "one_sm_l1")
    os.makedirs(out_dir, exist_ok=True)
    for gpu in ("h100", "h200"):
        with tarfile.open(os.path.join(ROOT, "runs", gpu + "-discovery-raw-7c81977.tgz")) as tar:
            files = {os.path.basename(m.name): m for m in tar.getmembers() if m.isfile()}

            def read(name):
                return tar.extractfile(files[name]).read().decode()

            manifest = json.loads(read("manifest.json"))
            for call in manifest["calls"]:
                requests = call.get("requests", [])
                if call["op"] != "chase" or len(requests) < 100:
                    continue
                first = requests[0]
                if first["sm"] != 0 or first["space"] not in SPACES or first["strideBytes"] != 32:
                    continue
                rows = list(csv.reader(io.StringIO(read("%05d-chase.csv" % call["call"]))))[1:]
                name = "%s-%05d-%s.csv" % (gpu, call["call"], first["space"])
                with open(os.path.join(out_dir, name), "w") as f:
                    for request, row in zip(requests, rows):
                        cycles = [int(v) for v in row[3:] if v]
                        misses = sum(1 for c in cycles if c > MISS_CYCLES)
                        f.write("%d,%.6f,%d\n" % (request["arrayBytes"], misses / len(cycles),
                                                  len(cycles)))
                print(name)


if __name__ == "__main__":
    main()
