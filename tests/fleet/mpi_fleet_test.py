#!/usr/bin/env python3
"""gputopo --fleet under mpirun: five ranks on simulated GPUs, one with 15 % less device-memory
read bandwidth and one with a 10 % lower clock limit; rank 0 must name those two, and only them,
as the outliers, each by its own difference (exit 6).

usage: mpi_fleet_test.py MPIEXEC GPUTOPO PRESET_DIR WORKDIR
"""
import json
import os
import subprocess
import sys


def main():
    mpiexec, gputopo, presets, workdir = sys.argv[1:]
    os.makedirs(workdir, exist_ok=True)
    preset = json.load(open(os.path.join(presets, "toy.json")))
    preset["bandwidth"]["dram_read_gbps"] *= 0.85
    slow = os.path.join(workdir, "toy-slow-dram.json")
    json.dump(preset, open(slow, "w"))
    preset = json.load(open(os.path.join(presets, "toy.json")))
    preset["device"]["sm_clock_max_mhz"] *= 0.9
    clocked = os.path.join(workdir, "toy-lower-clock.json")
    json.dump(preset, open(clocked, "w"))
    comparison = os.path.join(workdir, "comparison.json")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    run = subprocess.run(
        [mpiexec, "-np", "3", gputopo, "--fleet", "--sim", "toy", "-q", "-o", comparison, ":",
         "-np", "1", gputopo, "--fleet", "--sim", slow, "-q", ":",
         "-np", "1", gputopo, "--fleet", "--sim", clocked, "-q"],
        capture_output=True, text=True, timeout=600, env=env)
    print(run.stdout)
    if run.returncode != 6:
        sys.exit(f"mpirun exit {run.returncode}, expected 6 (GPUs differ)\n{run.stderr}")
    result = json.load(open(comparison))
    members = result["members"]
    if len(members) != 5 or not all(m.startswith(f"r{i}:") for i, m in enumerate(members)):
        sys.exit(f"expected the five ranks in order, got {members}")
    outliers = sorted(o["member"].split(":")[0] for o in result["outliers"])
    if outliers != ["r3", "r4"]:
        sys.exit(f"expected ranks 3 and 4 alone as the outliers, got {outliers}")
    by_attribute = {d["attribute"]: [m["member"].split(":")[0] for m in d["members"]]
                    for d in result["differences"]}
    if by_attribute.get("memory.dram.readBandwidth") != ["r3"]:
        sys.exit(f"rank 3's read bandwidth is not the difference: {by_attribute}")
    if by_attribute.get("device.smClockMax") != ["r4"]:
        sys.exit(f"rank 4's clock limit is not the difference: {by_attribute}")


if __name__ == "__main__":
    main()
