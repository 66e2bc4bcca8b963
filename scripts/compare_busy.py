#!/usr/bin/env python3
"""Holds discoveries made on a busy GPU against one made idle: the run status, and every discrete
attribute (a count, size, flag, name or list: unit "" or "B", or not a number) whose value differs
from the idle run's while its confidence is 0.5 or more. Such an attribute is the failure that
docs/busy.md guards against; a demoted one (no value, or confidence below 0.5) is not. Sizes (unit
"B") are measured with noise and count as differing beyond 5 %.

usage: compare_busy.py IDLE.json BUSY.json[:EXIT_CODE] [BUSY.json[:EXIT_CODE] ...]
Prints one block per busy run. Exit status 1 when a busy run is not `disturbed` or has a
discrete attribute that differs at confidence >= 0.5."""
import json
import sys


def attributes(report):
    for key, a in report.get("compute", {}).items():
        yield f"compute.{key}", a
    for element, attrs in report.get("memory", {}).items():
        for key, a in attrs.items():
            yield f"{element}.{key}", a


def discrete(a):
    v = a.get("value")
    return isinstance(v, bool) or not isinstance(v, (int, float)) or a.get("unit", "") in ("", "B")


def differs(busy, idle):
    if isinstance(busy, (int, float)) and isinstance(idle, (int, float)) and not isinstance(busy, bool):
        return abs(busy - idle) > SIZE_TOLERANCE * abs(idle)
    return busy != idle


SIZE_TOLERANCE = 0.05


def main(argv):
    idle = json.load(open(argv[1]))
    idle_values = {k: a.get("value") for k, a in attributes(idle) if isinstance(a, dict)}
    bad = False
    for arg in argv[2:]:
        path, _, code = arg.partition(":")
        busy = json.load(open(path))
        status = busy["run"]["status"]
        phases = sorted({p for d in busy["run"].get("disturbed", []) for p in d["phases"]})
        wrong, demoted = [], 0
        for key, a in attributes(busy):
            if not isinstance(a, dict) or a.get("source") not in ("measured", "derived"):
                continue
            if not discrete(a) and a.get("value") is not None:
                continue
            if a.get("confidence", 0) < 0.5 or a.get("value") is None:
                demoted += key in idle_values and idle_values[key] is not None
                continue
            if key in idle_values and (differs(a.get("value"), idle_values[key]) if a.get("unit") == "B"
                                       else a.get("value") != idle_values[key]):
                wrong.append(f"{key}: {a.get('value')} (idle {idle_values[key]}) "
                             f"at confidence {a.get('confidence')}")
        print(f"== {path}: status {status}, exit {code or '?'}, {len(phases)} disturbed phases, "
              f"{demoted} discrete attributes not established")
        for w in wrong:
            print(f"   DIFFERS {w}")
        if not wrong:
            print("   no discrete attribute differs from the idle run at confidence >= 0.5")
        bad |= bool(wrong) or status != "disturbed"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
