#!/usr/bin/env python3
"""Writes a reference for `gputopo check` from a gputopo JSON report: the device, compute and
memory sections with each attribute's value, unit, source, interval and reason (no evidence or
method), the tool that measured it, and the report it came from.

usage: scripts/make-reference.py REPORT.json OUT.json
"""
import json
import sys

KEPT = ("value", "unit", "source", "interval", "reason")


def kept(attr):
    return {k: v for k, v in attr.items() if k in KEPT}


def main():
    report_path, out_path = sys.argv[1], sys.argv[2]
    with open(report_path) as f:
        report = json.load(f)
    out = {
        "reference": {"from": report_path, "timestamp": report["run"]["timestamp"]},
        "tool": report["tool"],
        "device": {k: kept(a) for k, a in report["device"].items()},
        "compute": {k: kept(a) for k, a in report["compute"].items()},
        "memory": {e: {k: kept(a) for k, a in attrs.items()} for e, attrs in report["memory"].items()},
    }
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
