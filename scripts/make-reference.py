#!/usr/bin/env python3
"""Builds a reference for `gputopo check` from several runs of one GPU model (docs/fleet.md).

usage:
  scripts/make-reference.py OUT.json REPORT.json...    a reference from these reports
  scripts/make-reference.py --builtin [RESULTS_DIR]    rebuilds every src/fleet/references/*.json
                                                       from the reports under RESULTS_DIR
                                                       (default docs/results) of its GPU model
  scripts/make-reference.py --refresh                  rebuilds every src/fleet/references/*.json
                                                       from the reports it lists

Every GPU of a report (one GPU's, or each GPU of a `-d all` host report) is one run. A run counts
only where it is a complete main job on a real GPU: not simulated, not `--only`, not disturbed or
interrupted; the others are named on stderr and left out. All runs must be of one GPU model.

Each attribute of the reference holds, over the runs that established it:
- a number that was measured or derived: `value` the median, `interval` the median run's interval
  put around the median (where most runs have one), and `spread` with `runs` (that established
  it), `of` (whose report has it), `gpus` (distinct UUIDs), `min`, `max` and `sigma`, the largest
  of the runs' sample standard deviation, a robust one (1.4826 x the median absolute deviation,
  times the small-sample factor of Croux and Rousseeuw, 1992) and, over at least 3 GPUs, the
  sample standard deviation of the GPUs' medians: quantized values that tie hide their spread from
  the robust one, a few runs far off inflate the sample one, and many runs of one GPU hide how far
  healthy GPUs differ;
- anything else (the driver's numbers, strings, bools): `value` the most common value and
  `spread` with `runs`, `of`, `gpus` and `values`, every value a run gave;
- an attribute that most runs did not establish: `value` null, the most common `reason`.
The driver's and runtime's versions are left out: a GPU is healthy under any of them.
"""
import glob
import gzip
import json
import os
import statistics
import sys
from collections import Counter

REFERENCES = "src/fleet/references"
NOT_KEPT = {"uuid", "pciBusId", "numaId", "hostNumaId", "otherProcesses", "smClock",
            "memoryClock", "driverVersion", "driverCudaVersion", "runtimeVersion"}
# Croux and Rousseeuw's factors that make the scaled MAD unbiased for n < 10 (n / (n - 0.8) above).
SMALL_SAMPLE = {2: 1.196, 3: 1.495, 4: 1.363, 5: 1.206, 6: 1.200, 7: 1.140, 8: 1.129, 9: 1.107}


def robust_sigma(values):
    n = len(values)
    if n < 2:
        return 0.0
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    return 1.4826 * mad * SMALL_SAMPLE.get(n, n / (n - 0.8))


def why_not_a_run(run, simulated):
    if run is None:
        return "no run section"
    if run.get("command") not in ("discover", "check", None):
        return "command " + str(run.get("command"))
    if run.get("status") != "complete":
        return "status " + str(run.get("status"))
    if simulated:
        return "a simulated GPU"
    line = run.get("commandLine", [])
    if any(a == "--only" or a.startswith("--only=") or a == "--sim" for a in line):
        return "not the main job (" + " ".join(line[1:]) + ")"
    return None


def runs_of(path):
    """The GPUs of the report at `path` that are runs of the main job, and why the others are not."""
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return [], [f"{path}: {e}"]
    if not isinstance(doc, dict):
        return [], [f"{path}: not a gputopo report"]
    if isinstance(doc.get("gpus"), list):
        why = why_not_a_run(doc.get("run"), False)
        if why:
            return [], [f"{path}: {why}"]
        runs, skipped = [], []
        for i, gpu in enumerate(doc["gpus"]):
            why = why_not_a_run(gpu.get("run"), gpu.get("run", {}).get("simulated"))
            (skipped.append(f"{path}#{i}: {why}") if why else runs.append((f"{path}#{i}", gpu)))
        return runs, skipped
    if not all(isinstance(doc.get(s), dict) for s in ("device", "memory")):
        return [], [f"{path}: not a gputopo report"]
    why = why_not_a_run(doc.get("run"), doc.get("run", {}).get("simulated"))
    return ([], [f"{path}: {why}"]) if why else ([(path, doc)], [])


def as_current(memory):
    """A report from before the L2 read had two keys gave its own-lines pattern as readBandwidth;
    now that is unsharedReadBandwidth and readBandwidth is the faster of the two patterns."""
    l2 = (memory or {}).get("l2")
    if not isinstance(l2, dict) or "unsharedReadBandwidth" in l2 or "readBandwidth" not in l2:
        return memory
    l2 = dict(l2, unsharedReadBandwidth=l2["readBandwidth"])
    shared = l2.get("sharedReadBandwidth")
    if shared is None:
        del l2["readBandwidth"]  # older still: one pattern only, the faster one is unknown
    elif is_number(shared.get("value")) and not (
            is_number(l2["readBandwidth"].get("value")) and
            l2["readBandwidth"]["value"] >= shared["value"]):
        l2["readBandwidth"] = shared
    return dict(memory, l2=l2)


def attributes(report):
    """(section, element or None, key) -> attribute, for the scalar attributes of a report."""
    out = {}

    def add(section, element, attrs):
        for key, attr in (attrs or {}).items():
            if section == "device" and key in NOT_KEPT:
                continue
            if isinstance(attr, dict) and "value" in attr and not isinstance(attr["value"], (list, dict)):
                out[(section, element, key)] = attr

    add("device", None, report.get("device"))
    add("compute", None, report.get("compute"))
    for element, attrs in (as_current(report.get("memory")) or {}).items():
        add("memory", element, attrs)
    return out


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def established(attr):
    conf = attr.get("confidence")
    return attr.get("value") is not None and (conf is None or conf >= 0.5)


def typical_interval(attrs, center):
    """The median run's interval as distances below and above its value, put around `center`."""
    below, above = [], []
    for a in attrs:
        i = a.get("interval")
        if not (isinstance(i, list) and len(i) == 2):
            continue
        v = a["value"]
        below.append(v - i[0] if is_number(i[0]) else None)
        above.append(i[1] - v if is_number(i[1]) else None)
    if 2 * len(below) <= len(attrs):
        return None

    def side(d):
        finite = [max(x, 0.0) for x in d if x is not None]
        return statistics.median(finite) if 2 * len(finite) > len(d) else None

    lo, hi = side(below), side(above)
    return [None if lo is None else center - lo, None if hi is None else center + hi]


def between_gpus(pairs):
    """The sample standard deviation of the GPUs' medians, where at least 3 GPUs gave the value:
    how far healthy GPUs differ, which many runs of a few GPUs hide from the runs' own spread."""
    by_gpu = {}
    for v, u in pairs:
        by_gpu.setdefault(u, []).append(v)
    medians = [statistics.median(v) for v in by_gpu.values()]
    return statistics.stdev(medians) if len(medians) >= 3 else 0.0


def merged(attrs, uuids):
    first = attrs[0]
    good = [(a, u) for a, u in zip(attrs, uuids) if established(a)]
    out = {"value": None, "unit": first.get("unit", ""), "source": first.get("source", "")}
    if 2 * len(good) <= len(attrs):
        reasons = Counter(a.get("reason", "") for a in attrs if not established(a))
        out["reason"] = reasons.most_common(1)[0][0] or "most runs did not establish it"
        out["spread"] = {"runs": len(good), "of": len(attrs), "gpus": len(set(u for _, u in good))}
        return out
    values = [a["value"] for a, _ in good]
    spread = {"runs": len(values), "of": len(attrs), "gpus": len(set(u for _, u in good))}
    if all(is_number(v) for v in values) and any(a.get("source") in ("measured", "derived") for a, _ in good):
        med = statistics.median(values)
        out["value"] = med
        confidences = [a["confidence"] for a, _ in good if is_number(a.get("confidence"))]
        if confidences:
            out["confidence"] = statistics.median(confidences)
        interval = typical_interval([a for a, _ in good], med)
        if interval:
            out["interval"] = interval
        sample = statistics.stdev(values) if len(values) > 1 else 0.0
        sigma = max(sample, robust_sigma(values), between_gpus([(a["value"], u) for a, u in good]))
        spread.update({"min": min(values), "max": max(values), "sigma": sigma})
    else:
        counts = Counter(json.dumps(v) for v in values)
        out["value"] = json.loads(counts.most_common(1)[0][0])
        spread["values"] = [json.loads(v) for v in counts]
    out["spread"] = spread
    return out


def build(paths, gpu=None):
    """The reference of the runs in `paths`; with `gpu`, of the runs of that model only."""
    runs, skipped = [], []
    for p in paths:
        r, s = runs_of(p)
        runs += [(n, g) for n, g in r if gpu is None or g["device"]["name"]["value"] == gpu]
        skipped += s
    for s in skipped if gpu is None else []:
        print(f"make-reference: left out {s}", file=sys.stderr)
    if not runs:
        sys.exit("make-reference: no run of the main job among the reports")
    names = Counter(r["device"]["name"]["value"] for _, r in runs)
    if len(names) > 1:
        sys.exit(f"make-reference: the runs are of several GPU models: {dict(names)}")
    uuids = [r["device"].get("uuid", {}).get("value") for _, r in runs]
    per_run = [attributes(r) for _, r in runs]
    keys = []
    for attrs in per_run:
        keys += [k for k in attrs if k not in keys]
    out = {"reference": {"gpu": next(iter(names)), "runs": len(runs), "gpus": len(set(uuids)),
                         "reports": [name for name, _ in runs]},
           "device": {}, "compute": {}, "memory": {}}
    for section, element, key in keys:
        have = [(a[(section, element, key)], u) for a, u in zip(per_run, uuids) if (section, element, key) in a]
        attr = merged([a for a, _ in have], [u for _, u in have])
        target = out[section] if element is None else out["memory"].setdefault(element, {})
        target[key] = attr
    return out


def write(out_path, reference):
    with open(out_path, "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    r = reference["reference"]
    print(f"{out_path}: {r['gpu']}, {r['runs']} runs on {r['gpus']} GPUs")


def builtin(results):
    reports = sorted(glob.glob(os.path.join(results, "**", "*.json"), recursive=True) +
                     glob.glob(os.path.join(results, "**", "*.json.gz"), recursive=True))
    for out_path in sorted(glob.glob(os.path.join(REFERENCES, "*.json"))):
        with open(out_path) as f:
            gpu = json.load(f)["device"]["name"]["value"]
        write(out_path, build(reports, gpu))


def refresh():
    for out_path in sorted(glob.glob(os.path.join(REFERENCES, "*.json"))):
        with open(out_path) as f:
            listed = json.load(f)["reference"]["reports"]
        write(out_path, build(list(dict.fromkeys(name.split("#")[0] for name in listed))))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--builtin" and len(args) <= 2:
        builtin(args[1] if len(args) == 2 else "docs/results")
    elif args == ["--refresh"]:
        refresh()
    elif len(args) >= 2 and not args[0].startswith("-"):
        write(args[0], build(args[1:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
