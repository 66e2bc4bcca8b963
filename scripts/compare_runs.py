#!/usr/bin/env python3
"""Compares gputopo JSON reports of one GPU: are discrete attributes identical, how far apart are
the continuous ones, and (optionally) does `gputopo info --json` agree with nvidia-smi/PyTorch.

usage: compare_runs.py RUN.json [RUN.json ...] [--reference reference.json]

reference.json (written by scripts/device-validate.sh on the GPU machine) holds what nvidia-smi
and PyTorch say: name, smCount, l2Size, memorySize (MiB), smClockMax, memoryClockMax (MHz).
Exit status 1 when a discrete attribute differs between runs or a reference check fails."""
import json
import sys

# Attributes whose value must be identical from run to run; every other numeric attribute is
# continuous and reported as a relative spread.
DISCRETE = {"lineSize", "fetchGranularity", "countPerSm", "sharedWith", "segmentCount",
            "globalLoadsCached", "carveout", "tpcCount", "gpcCount", "smsPerTpc", "smsPerGpc"}
# Continuous attributes the issues put a bound on, and the bound (relative spread).
BOUNDS = {"size": 0.01}


def load(path):
    with open(path) as f:
        return json.load(f)


def attributes(report):
    for group in ("compute",):
        for key, a in report.get(group, {}).items():
            if isinstance(a, dict) and a.get("source") == "measured":
                yield f"{group}.{key}", key, a
    for element, attrs in report.get("memory", {}).items():
        for key, a in attrs.items():
            if isinstance(a, dict) and "value" in a:
                yield f"memory.{element}.{key}", key, a


def compare(paths):
    return compare_reports([load(p) for p in paths])


def compare_reports(runs):
    rows, failed = [], False
    keys = {}
    for r in runs:
        for full, key, a in attributes(r):
            keys.setdefault(full, (key, []))[1].append(a.get("value"))
    for full, (key, values) in keys.items():
        if key in DISCRETE:
            same = all(v == values[0] for v in values) and len(values) == len(runs)
            failed |= not same
            rows.append((full, "discrete", "identical" if same else "DIFFERS", values))
        elif all(isinstance(v, (int, float)) for v in values) and values:
            lo, hi = min(values), max(values)
            spread = (hi - lo) / abs(hi) if hi else 0.0
            bound = BOUNDS.get(key)
            verdict = f"{100 * spread:.2f} %"
            if bound is not None and spread > bound:
                verdict += f" > {100 * bound:.0f} % BOUND"
                failed = True
            rows.append((full, "continuous", verdict, values))
    width = max(len(r[0]) for r in rows) if rows else 10
    for full, kind, verdict, values in rows:
        shown = values if len(str(values)) < 90 else str(values)[:87] + "..."
        print(f"{full:<{width}}  {kind:<10}  {verdict:<22}  {shown}")
    secs = [r.get("run", {}).get("durationSeconds") for r in runs]
    print(f"runs: {len(runs)}; wall seconds: {secs}")
    return failed


def check_reference(info_path, ref_path):
    info, ref = load(info_path), load(ref_path)
    dev, comp = info["device"], info["compute"]
    checks = [
        ("name", dev["name"]["value"], ref["name"], lambda a, b: a == b),
        ("smCount", comp["smCount"]["value"], ref["smCount"], lambda a, b: a == b),
        ("l2Size", comp["l2Size"]["value"], ref["l2Size"], lambda a, b: a == b),
        ("memorySize MiB", dev["memorySize"]["value"] // 2**20, ref["memorySizeMiB"],
         lambda a, b: abs(a - b) <= 0.01 * b),
        ("smClockMax MHz", dev["smClockMax"]["value"], ref["smClockMax"],
         lambda a, b: abs(a - b) <= 1),
        ("memoryClockMax MHz", dev["memoryClockMax"]["value"], ref["memoryClockMax"],
         lambda a, b: abs(a - b) <= 1),
    ]
    failed = False
    for what, ours, theirs, agree in checks:
        ok = ours is not None and theirs is not None and agree(ours, theirs)
        failed |= not ok
        print(f"{what:<20} gputopo {ours!s:<28} reference {theirs!s:<28} {'ok' if ok else 'DIFFERS'}")
    return failed


def main(argv):
    ref = None
    if "--reference" in argv:
        i = argv.index("--reference")
        ref = argv[i + 1]
        del argv[i:i + 2]
    if "--info" in argv:
        i = argv.index("--info")
        info = argv[i + 1]
        del argv[i:i + 2]
    else:
        info = None
    failed = compare(argv) if argv else False
    if ref and info:
        failed |= check_reference(info, ref)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
