#!/usr/bin/env python3
"""How often repeat runs of one GPU fall inside each other's 95 % intervals (docs/methods.md,
"Intervals"): for every ordered pair of reports (A, B) and every measured or derived number that
A gives an interval, whether B's value lies inside A's interval.

usage: interval_agreement.py [--min RATE] RUN.json RUN.json [RUN.json ...]

Prints one line per attribute (pairs inside / pairs) and the total. With --min, exit status 1 when
the total rate is below RATE (e.g. 0.9)."""
import json
import math
import sys


def numbers(report):
    groups = [("compute", report.get("compute", {}))]
    groups += [(f"memory.{e}", a) for e, a in report.get("memory", {}).items()]
    for prefix, attrs in groups:
        for key, a in attrs.items():
            if (isinstance(a, dict) and a.get("source") in ("measured", "derived")
                    and isinstance(a.get("value"), (int, float))
                    and not isinstance(a.get("value"), bool)):
                yield f"{prefix}.{key}", a


def inside(value, interval):
    lo = -math.inf if interval[0] is None else interval[0]
    hi = math.inf if interval[1] is None else interval[1]
    slack = 1e-9 * abs(value)
    return lo - slack <= value <= hi + slack


def agreement(reports):
    rows = {}
    values = [dict(numbers(r)) for r in reports]
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if i == j:
                continue
            for name, attr in a.items():
                if "interval" not in attr or name not in b:
                    continue
                row = rows.setdefault(name, [0, 0])
                row[1] += 1
                row[0] += inside(b[name]["value"], attr["interval"])
    return rows


def main(argv):
    minimum = None
    if len(argv) > 1 and argv[0] == "--min":
        minimum = float(argv[1])
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    reports = [json.load(open(p)) for p in argv]
    rows = agreement(reports)
    inside_total = sum(r[0] for r in rows.values())
    total = sum(r[1] for r in rows.values())
    for name, (n_in, n) in sorted(rows.items()):
        flag = "" if n_in == n else "  <- outside"
        print(f"{name:56} {n_in}/{n}{flag}")
    rate = inside_total / total if total else 1.0
    print(f"total: {inside_total}/{total} pairs inside = {rate:.3f} over {len(reports)} runs")
    return 1 if minimum is not None and rate < minimum else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
