#!/usr/bin/env python3
"""Time and peak memory of `gputopo compare` on large fleets (docs/fleet.md, "Large fleets").

usage: bench/fleet/compare_bench.py GPUTOPO [SCRATCH_DIR]

Three cases, each one run of the binary, timed with its peak resident memory (getrusage of the
child): one host report of 100,000 minimal GPUs (a name, an SM count, a measured bandwidth with
its interval, one GPU in 1,000 slow); 20,000 report files of one such GPU each; and 200 copies of
the simulated H100's full report (the golden tests/data/golden/h100-sxm.json made whole, 50 MB
of JSON). Exits 1 when a case takes 10 s or more, or 1 GiB or more, or does not exit 6 with the
slow GPUs as the outliers.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

LIMIT_S = 10.0
LIMIT_BYTES = 1 << 30
GOLDEN_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "golden")


def golden_report(stem):
    """A golden discovery report made whole: <stem>.json with each probe's findings of <stem>/
    put back (docs/testing.md, "Golden reports")."""
    with open(os.path.join(GOLDEN_DIR, stem + ".json")) as f:
        report = json.load(f)
    for name in sorted(os.listdir(os.path.join(GOLDEN_DIR, stem))):
        with open(os.path.join(GOLDEN_DIR, stem, name)) as f:
            findings = json.load(f).get("findings", {})
        for path, attribute in findings.items():
            element, key = path.split(".", 1)
            if element == "compute":
                report["compute"][key] = attribute
            else:
                report["memory"].setdefault(element, {})[key] = attribute
    return report


def minimal_gpu(i):
    bandwidth = 3000.0 * (0.85 if i % 1000 == 999 else 1.0 + 0.001 * ((i * 7919) % 11 - 5))
    return {"device": {"name": {"value": "GPU", "source": "api"}},
            "compute": {"smCount": {"value": 132, "source": "api"}},
            "memory": {"dram": {"readBandwidth": {
                "value": bandwidth, "unit": "GB/s", "source": "measured", "confidence": 1.0,
                "interval": [0.995 * bandwidth, 1.005 * bandwidth]}}}}


def run(binary, files, expect_outliers):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen([binary, "compare", "--json", *files], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        try:
            outliers = len(json.load(out)["outliers"])
        except ValueError:
            outliers = None
        ok = code == (6 if expect_outliers else 0) and outliers == expect_outliers
        return seconds, usage.ru_maxrss * 1024, ok, err.read().decode().strip()


def generate(scratch):
    """Writes the cases' files; run in its own process, so that the memory of the fork that runs
    gputopo is not this one's."""
    with open(os.path.join(scratch, "host.json"), "w") as f:
        json.dump({"gpus": [minimal_gpu(i) for i in range(100000)]}, f)
    for i in range(20000):
        with open(os.path.join(scratch, f"node{i:05d}.json"), "w") as f:
            json.dump(minimal_gpu(i), f)
    full = golden_report("h100-sxm")
    with open(os.path.join(scratch, "full-host.json"), "w") as f:
        json.dump({"gpus": [full] * 200}, f)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--generate":
        return generate(sys.argv[2])
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[1]
    scratch = sys.argv[2] if len(sys.argv) == 3 else tempfile.mkdtemp(prefix="gputopo-compare-bench-")
    os.makedirs(scratch, exist_ok=True)
    subprocess.run([sys.executable, __file__, "--generate", scratch], check=True)
    cases = [
        ("one host report, 100,000 minimal GPUs", [os.path.join(scratch, "host.json")], 100),
        ("20,000 files of one minimal GPU",
         [os.path.join(scratch, f"node{i:05d}.json") for i in range(20000)], 20),
        ("one host report, 200 full simulated H100 reports", [os.path.join(scratch, "full-host.json")], 0),
    ]
    failed = False
    for name, args, outliers in cases:
        seconds, peak, ok, err = run(binary, args, outliers)
        good = ok and seconds < LIMIT_S and peak < LIMIT_BYTES
        failed = failed or not good
        print(f"{name}: {seconds:.2f} s, peak {peak / 2**20:.0f} MiB"
              f"{'' if ok else ', unexpected result ' + err}{'' if good else '  FAIL'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
