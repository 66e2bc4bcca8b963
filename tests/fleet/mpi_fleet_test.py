#!/usr/bin/env python3
"""gputopo --fleet under mpirun: four ranks on simulated GPUs, one with 15 % less device-memory
read bandwidth; rank 0 must name that rank, and only it, as the outlier (exit 6).

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
    comparison = os.path.join(workdir, "comparison.json")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    run = subprocess.run(
        [mpiexec, "-np", "3", gputopo, "--fleet", "--sim", "toy", "-q", "-o", comparison, ":",
         "-np", "1", gputopo, "--fleet", "--sim", slow, "-q"],
        capture_output=True, text=True, timeout=600, env=env)
    print(run.stdout)
    if run.returncode != 6:
        sys.exit(f"mpirun exit {run.returncode}, expected 6 (GPUs differ)\n{run.stderr}")
    result = json.load(open(comparison))
    members = result["members"]
    if len(members) != 4 or not all(m.startswith(f"r{i}:") for i, m in enumerate(members)):
        sys.exit(f"expected the four ranks in order, got {members}")
    outliers = [o["member"] for o in result["outliers"]]
    if len(outliers) != 1 or not outliers[0].startswith("r3:"):
        sys.exit(f"expected rank 3 alone as the outlier, got {outliers}")
    paths = [d["attribute"] for d in result["differences"]]
    if "memory.dram.readBandwidth" not in paths:
        sys.exit(f"the device-memory read bandwidth is not among the differences: {paths}")


if __name__ == "__main__":
    main()
