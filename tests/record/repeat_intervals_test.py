#!/usr/bin/env python3
"""Repeat runs of one real GPU fall inside each other's 95 % intervals (docs/methods.md,
"Intervals"): every group of recordings tests/data/runs/repeats/<gpu>-repeat-<n>.tgz
(scripts/device-repeats.sh) is replayed with `gputopo analyze`, and across each group at least
90 % of the (run, other run's interval) pairs must hold the value.

usage: repeat_intervals_test.py GPUTOPO RUNS_DIR
Exit 77 (skipped) when no GPU has two recorded runs of one build."""
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import interval_agreement  # noqa: E402

MINIMUM = 0.9


def replay(gputopo, archive, scratch):
    with tarfile.open(archive) as t:
        t.extractall(scratch, filter="data")
    manifests = glob.glob(os.path.join(scratch, "**", "manifest.json"), recursive=True)
    if len(manifests) != 1:
        raise SystemExit(f"{archive}: expected one recording, found {len(manifests)}")
    out = os.path.join(scratch, "report.json")
    subprocess.run([gputopo, "analyze", os.path.dirname(manifests[0]), "--json", "-o", out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def main(gputopo, runs_dir):
    groups = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(runs_dir, "repeats", "*-repeat-*.tgz"))):
        groups[re.sub(r"-repeat-\d+\.tgz$", "", os.path.basename(path))].append(path)
    groups = {g: p for g, p in groups.items() if len(p) >= 2}
    if not groups:
        print("skipped: no GPU has two recorded runs of one build under "
              f"{runs_dir}/repeats (record them with scripts/device-repeats.sh)")
        return 77
    failed = False
    for gpu, paths in sorted(groups.items()):
        reports = []
        for path in paths:
            with tempfile.TemporaryDirectory() as scratch:
                reports.append(replay(gputopo, path, scratch))
        rows = interval_agreement.agreement(reports)
        n_in = sum(r[0] for r in rows.values())
        n = sum(r[1] for r in rows.values())
        rate = n_in / n if n else 1.0
        print(f"{gpu}: {len(reports)} runs, {n_in}/{n} pairs inside = {rate:.3f}")
        for name, (k, m) in sorted(rows.items()):
            if k < m:
                print(f"  outside: {name} {k}/{m}")
        failed |= rate < MINIMUM
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
