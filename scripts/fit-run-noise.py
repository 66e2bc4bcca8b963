#!/usr/bin/env python3
"""Fits how far a value moves between runs on one GPU, by kind of measurement, from repeat runs
recorded on real GPUs (docs/methods.md, "Intervals": the run-to-run term).

usage:
  scripts/fit-run-noise.py [--check SOURCE] DIR [DIR ...]

Each DIR holds the reports (run*.json, or run*.json.gz) of consecutive main jobs on one GPU. For every measured
or derived number, the relative sample standard deviation of its runs on one GPU, pooled (root
mean square) over the GPUs; per kind (the units of src/model/run_noise.cpp), the 90th percentile
of that over the kind's attributes; an attribute over its kind's median plus three robust standard
deviations gets a figure of its own instead (`memory.l2.sharedReadBandwidth`). DIRs may also be
the gpuN folders of a host's runs. With --check, exit status 1 when a kind's or an attribute's
figure in SOURCE (a line `{"<kind or attribute>", <sd>}`) is below the fit."""
import glob
import gzip
import json
import math
import os
import re
import statistics
import sys

KINDS = {
    "bandwidth": {"GB/s", "B/clk", "%"},
    "latency": {"cycles"},
    "size": {"B"},
    "time": {"ns"},
    "rate": {"instr/clk/SM", "thread instructions/clk/SM", "FLOP/clk/SM", "TFLOP/s",
             "OPS/clk/SM", "TOPS", "registers/clk"},
}


def numbers(report):
    groups = [("compute", report.get("compute", {}))]
    groups += [(f"memory.{e}", a) for e, a in report.get("memory", {}).items()]
    for prefix, attrs in groups:
        for key, a in attrs.items():
            v = a.get("value") if isinstance(a, dict) else None
            if (a and a.get("source") in ("measured", "derived") and isinstance(v, (int, float))
                    and not isinstance(v, bool)):
                yield f"{prefix}.{key}", a.get("unit", ""), float(v)


def fit(dirs):
    per_attr = {}  # (kind, key) -> [relative sd per GPU]
    for d in dirs:
        runs = [json.load(gzip.open(f, "rt") if f.endswith(".gz") else open(f))
                for f in sorted(glob.glob(os.path.join(d, "run*.json*")))]
        values = {}
        for r in runs:
            for key, unit, v in numbers(r):
                kind = next((k for k, units in KINDS.items() if unit in units), None)
                if kind:
                    values.setdefault((kind, key), []).append(v)
        for ak, vs in values.items():
            m = statistics.mean(vs)
            if len(vs) >= 3 and m != 0:
                per_attr.setdefault(ak, []).append(statistics.stdev(vs) / abs(m))
    return {ak: math.sqrt(statistics.mean(s * s for s in sds)) for ak, sds in per_attr.items()}


def percentile90(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(0.9 * len(values)))] if values else 0.0


def main(argv):
    source = None
    if argv[:1] == ["--check"]:
        source, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    rms = fit(argv)
    text = open(source).read() if source else ""
    figure = lambda name: (float(m.group(1)) if (m := re.search(
        r'\{"' + re.escape(name) + r'",\s*([0-9.eE+-]+)\}', text)) else None)
    bad = 0
    for kind in sorted({k for k, _ in rms}):
        # The kind's figure covers its attributes that have none of their own in SOURCE.
        rest = [r for (k, key), r in rms.items() if k == kind and figure(key) is None]
        sd = percentile90(rest)
        print(f"{kind:10s} {sd:.5f} (90th percentile of {len(rest)} attributes, {len(argv)} GPUs)")
        have = figure(kind)
        if source and (have is None or have < sd):
            print(f"{source}: {kind} is {have}, below the fit {sd:.5f}")
            bad = 1
        for (k, key), r in sorted(rms.items()):
            if k != kind or r <= (have if have is not None else sd):
                continue
            own = figure(key)
            print(f"  {key} {r:.5f} (above its kind: needs its own figure, {own})")
            if source and (own is None or own < r):
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
