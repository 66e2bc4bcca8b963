#!/usr/bin/env python3
"""Per-phase seconds of gputopo reports: the median over runs of each phase, largest first.

usage: bench/phases.py [--times FILE] [--min SECONDS] REPORT.json...

Reads `run.phases` of single-GPU reports and of every GPU of a host report (`-d all`: each GPU is
one run; the host's `run.openSeconds` and `host.linksSeconds` are printed besides). Prints a markdown table of every phase whose median is at least --min seconds (default
0.005), then the median sum of the phases, the median `run.durationSeconds` (the discovery in the
process), and, with --times, the median whole-process time from FILE (one number of seconds a
line, as scripts/device-speed.sh writes them). Not a timed test: it reads what a run recorded.
"""
import argparse
import json
import statistics
import sys


def phases_of(run):
    phases = run.get("phases")
    if not isinstance(phases, list):
        return None, None
    seconds = {}
    for p in phases:
        seconds[p["name"]] = seconds.get(p["name"], 0.0) + float(p.get("seconds", 0.0))
    return seconds, run.get("durationSeconds")


def runs_of(path, host_times):
    """The (phases, duration) of each run in the report at `path`: one, or one per GPU of a host."""
    with open(path) as f:
        report = json.load(f)
    if isinstance(report.get("gpus"), list):
        host_times.append((report["run"].get("openSeconds"), report.get("host", {}).get("linksSeconds"),
                           report["run"].get("durationSeconds")))
        return [phases_of(g.get("run", {})) for g in report["gpus"]]
    return [phases_of(report.get("run", {}))]


def read_times(path):
    times = []
    with open(path) as f:
        for line in f:
            word = line.split()
            if word:
                times.append(float(word[0]))
    return times


def fmt(values):
    return f"{statistics.median(values):.3f}" if values else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--times", help="whole-process seconds, one a line")
    parser.add_argument("--min", type=float, default=0.005, help="smallest median phase shown")
    args = parser.parse_args()

    runs, durations, host_times = [], [], []
    for path in args.reports:
        for seconds, duration in runs_of(path, host_times):
            if seconds is None:
                print(f"phases.py: {path}: a run without run.phases, skipped", file=sys.stderr)
                continue
            runs.append(seconds)
            if duration is not None:
                durations.append(float(duration))
    if not runs:
        print("phases.py: no report with phases", file=sys.stderr)
        return 2

    names = []
    for seconds in runs:
        names += [n for n in seconds if n not in names]
    per_phase = {n: [r.get(n, 0.0) for r in runs] for n in names}
    order = sorted(names, key=lambda n: -statistics.median(per_phase[n]))
    print(f"| phase | median s | min s | max s |  ({len(runs)} runs)")
    print("|---|---|---|---|")
    rest = 0.0
    for n in order:
        v = per_phase[n]
        if statistics.median(v) < args.min:
            rest += statistics.median(v)
            continue
        print(f"| {n} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
    print(f"| (others, each under {args.min} s) | {rest:.3f} | | |")
    print()
    print(f"sum of phases (median): {fmt([sum(r.values()) for r in runs])} s")
    print(f"discovery in process, run.durationSeconds (median): {fmt(durations)} s")
    for opened, links, whole in host_times:
        print(f"host report: GPUs open after {opened} s, links {links} s, whole run {whole} s")
    if args.times:
        times = read_times(args.times)
        print(f"whole process (median of {len(times)}): {fmt(times)} s"
              + (f", runs {', '.join(f'{t:.2f}' for t in times)}" if times else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
