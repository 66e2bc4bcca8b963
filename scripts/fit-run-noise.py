#!/usr/bin/env python3
"""Fits how far a value moves between runs on one GPU, by kind of measurement, from repeat runs
recorded on real GPUs (docs/methods.md, "Intervals": the run-to-run term).

usage:
  scripts/fit-run-noise.py [--check SOURCE] DIR [DIR ...]

Each DIR holds the reports (run*.json) of consecutive main jobs on one GPU. For every measured
or derived number, the relative sample standard deviation of its runs on one GPU, pooled (root
mean square) over the GPUs; per kind (the units of src/model/run_noise.cpp), the 90th percentile
of that over the kind's attributes. With --check, exit status 1 when a kind's figure in SOURCE
(a line `{"<kind>", <sd>}`) is below the fit."""
import glob
import json
import math
import os
import re
import statistics
import sys

KINDS = {
    "bandwidth": {"GB/s", "B/clk", "%"},
    "latency": {"cycles"},
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
        runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "run*.json")))]
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
    by_kind = {}
    for (kind, _), sds in per_attr.items():
        by_kind.setdefault(kind, []).append(math.sqrt(statistics.mean(s * s for s in sds)))
    out = {}
    for kind, xs in by_kind.items():
        xs.sort()
        out[kind] = (xs[min(len(xs) - 1, int(0.9 * len(xs)))], len(xs))
    return out


def main(argv):
    source = None
    if argv[:1] == ["--check"]:
        source, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    fitted = fit(argv)
    for kind, (sd, n) in sorted(fitted.items()):
        print(f"{kind:10s} {sd:.5f} (90th percentile of {n} attributes, {len(argv)} GPUs)")
    if source is None:
        return 0
    text = open(source).read()
    bad = 0
    for kind, (sd, _) in fitted.items():
        m = re.search(r'\{"' + kind + r'",\s*([0-9.eE+-]+)\}', text)
        if not m or float(m.group(1)) < sd:
            print(f"{source}: {kind} is {m.group(1) if m else 'missing'}, below the fit {sd:.5f}")
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
