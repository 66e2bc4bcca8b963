#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets to corpus/<target>/ (docs/testing.md).

Usage: make_corpus.py GPUTOPO_BINARY

Seeds: every preset, recordings of quick `--sim toy` runs, typical command lines, and the
reproductions of issues 12 and 32 (files named issue12-*, issue32-*). Inputs the fuzzers found are kept beside them.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
PRESETS = HERE.parent.parent / "src" / "device" / "sim" / "presets"
DEEP = "[" * 300000 + "]" * 300000


def write(target, name, data):
    path = CORPUS / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def sim_config_seeds():
    for preset in sorted(PRESETS.glob("*.json")):
        write("sim_config", "preset-" + preset.name, preset.read_text())
    toy_text = (PRESETS / "toy.json").read_text()
    toy = json.loads(toy_text)
    write("sim_config", "issue12-deep-nesting.json", '{"name": ' + DEEP + "}")
    write("sim_config", "issue12-number-overflow.json",
          toy_text.replace('"latency_cycles": 20', '"latency_cycles": 1e400', 1))
    bad = json.loads(toy_text)
    bad["device"]["sm_count"] = 4096
    write("sim_config", "issue12-4096-sms.json", json.dumps(bad, indent=1))
    bad = json.loads(toy_text)
    bad["l2"] = {"size_bytes": 1 << 36, "ways": 256, "line_bytes": 4096,
                 "near_latency_cycles": 200}
    bad["device"]["global_memory_bytes"] = (1 << 64) - 1
    write("sim_config", "issue12-huge-l2.json", json.dumps(bad, indent=1))
    bad = json.loads(toy_text)
    for i in range(30):
        bad["caches"]["big%d" % i] = {"size_bytes": 1 << 28, "ways": 16, "line_bytes": 64,
                                      "latency_cycles": 30}
    write("sim_config", "issue12-30-big-caches.json", json.dumps(bad, indent=1))
    bad = json.loads(toy_text)
    bad["caches"]["l1"] = {"size_bytes": 1 << 26, "ways": 16, "line_bytes": 32,
                           "latency_cycles": 30, "instances_per_sm": 64}
    write("sim_config", "issue12-instances-per-sm.json", json.dumps(bad, indent=1))
    h100 = json.loads((PRESETS / "h100-sxm.json").read_text())
    l1 = h100["caches"]["l1"]
    l1.update({"sets": 1 << 22, "line_bytes": 4})
    l1.pop("sector_bytes", None)
    l1.pop("fetch_bytes", None)
    h100["unified_l1_shared"]["total_bytes"] = 1 << 28
    write("sim_config", "issue12-unified-sets.json", json.dumps(h100, indent=1))
    issue32 = {
        "tiny-memory": lambda t: t["device"].update(global_memory_bytes=4096),
        "320-sms": lambda t: (t["device"].update(sm_count=320),
                              t["layout"].update(gpc_tpcs=[160, 160], sms_per_tpc=1)),
        "dram-latency-1": lambda t: t["dram"].update(latency_cycles=1),
        "l1-1.5-cycles": lambda t: t["caches"]["l1"].update(latency_cycles=1.5),
        "escape-name": lambda t: t["device"].update(name="Evil\x1b]0;owned\x07GPU"),
        "dram-above-peak": lambda t: t["bandwidth"].update(dram_read_gbps=1e5),
    }
    for name, edit in issue32.items():
        bad = json.loads(toy_text)
        edit(bad)
        write("sim_config", "issue32-" + name + ".json", json.dumps(bad, indent=1))


def pack(directory, only):
    """A recording directory as one archive (recording_archive.hpp)."""
    files = sorted(directory.iterdir(), key=lambda f: (f.name != "manifest.json", f.name))
    text = "only " + only + "\n" if only else ""
    for f in files:
        text += "=== " + f.name + "\n" + f.read_text()
    return text


def recording_seeds(gputopo):
    with tempfile.TemporaryDirectory() as tmp:
        recordings = {}
        for only in ["shared", "shared,dram.bandwidth", "l2.fetch", "layout"]:
            d = pathlib.Path(tmp) / only.replace(",", "_")
            subprocess.run([gputopo, "--sim", "toy", "--only", only, "--raw", str(d), "-q"],
                           check=True, stdout=subprocess.DEVNULL)
            recordings[only] = pack(d, only)
            write("recording", "toy-" + only.replace(",", "-") + ".rec", recordings[only])
        # The toy has no compute model: compute calls come from the simulated H100.
        d = pathlib.Path(tmp) / "divergence"
        subprocess.run([gputopo, "--sim", "h100-sxm", "--only", "divergence", "--raw", str(d),
                        "-q"], check=True, stdout=subprocess.DEVNULL)
        recordings["divergence"] = pack(d, "divergence")
    shared = recordings["shared"]
    head, rows = shared.split("=== 00000-chase.csv\n")
    rows = rows.split("\n")
    first = rows[1].split(",")
    first[2] = "NaN"
    rows[1] = ",".join(first)
    write("recording", "issue12-nan-sample.rec", head + "=== 00000-chase.csv\n" + "\n".join(rows))
    write("recording", "issue12-huge-smcount.rec",
          shared.replace('"smCount": 6,', '"smCount": 2147483647,', 1))
    write("recording", "issue12-number-overflow.rec",
          shared.replace('"version": 1,', '"version": 1e400,', 1))
    write("recording", "issue12-cut-short.rec",
          shared.replace('"complete": true,', '"complete": false,', 1))
    write("recording", "issue12-deep-nesting.rec", "only shared\n=== manifest.json\n" + DEEP)
    issue32_recording_seeds(recordings)


def issue32_recording_seeds(recordings):
    shared = recordings["shared"]
    for field in ["smCount", "warpSize", "maxThreadsPerBlock"]:
        text = re.sub('"' + field + '": {"value":[0-9]+', '"' + field + '": {"value":0', shared, 1)
        write("recording", "issue32-" + field + "-zero.rec", text)
    write("recording", "issue32-negative-clock.rec",
          re.sub('"smClockMax": {"value":[0-9]+', '"smClockMax": {"value":-1980', shared, 1))
    streams = recordings["shared,dram.bandwidth"]
    head, rest = streams.split("-stream.csv\nrepeat,gbps\n0,", 1)
    rest = "18446744073709551616" + rest[rest.index("\n"):]
    write("recording", "issue32-stream-2-64.rec", head + "-stream.csv\nrepeat,gbps\n0," + rest)
    compute = recordings["divergence"]
    head, rest = compute.split("-compute.csv\n", 1)
    cut = rest.find("\n=== ")
    body, tail = (rest, "") if cut < 0 else (rest[:cut + 1], rest[cut + 1:])
    lines = body.splitlines(keepends=True)
    write("recording", "issue32-compute-header-only.rec",
          head + "-compute.csv\n" + lines[0] + tail)
    write("recording", "issue32-compute-last-row-dropped.rec",
          head + "-compute.csv\n" + "".join(lines[:-1]) + tail)


CLI_SEEDS = {
    "discover": [],
    "info": ["info"],
    "list": ["list"],
    "help": ["--help"],
    "version": ["--version"],
    "sim-info-json": ["--sim", "toy", "--json", "info"],
    "sim-list-json": ["list", "--sim", "a100", "--json"],
    "sim-only": ["--sim", "toy", "--only", "l1,l2.fetch", "-q"],
    "all-options": ["-d", "0", "--seed", "3", "--carveout", "default", "--time-budget", "2.5",
                    "--sim", "h100-sxm", "-q", "--json", "-o", "out.json", "--raw", "raw"],
    "analyze": ["analyze", "raw", "--only", "shared", "--carveout", "50"],
    "issue12-non-utf8-argument": ["--sim", "toy", "--json", "info", "-o", b"r\xe9port.json"],
    "issue12-seed-minus-one": ["--seed", "-1"],
    "issue12-seed-2-64": ["--seed", "18446744073709551616"],
    "issue12-device-abc": ["-d", "abc"],
    "issue12-time-budget-abc": ["--time-budget", "abc"],
    "issue12-time-budget-nan": ["--time-budget", "nan"],
    "issue12-time-budget-inf": ["--time-budget", "inf"],
    "issue12-only-bogus-info": ["--only", "bogus", "info"],
    "issue12-list-output": ["list", "-o", "f.json"],
    "issue12-device-3": ["-d", "3"],
    "issue12-info-raw": ["info", "--raw", "raw"],
    "issue12-only-bogus-output": ["--sim", "toy", "--only", "bogus", "-o", "keep.json"],
    "issue32-tolerance-empty": ["compare", "--tolerance", "", "a.json", "b.json"],
    "issue32-reference-empty": ["check", "--reference", ""],
    "issue32-report-empty": ["report", ""],
    "issue32-output-attached-empty": ["--sim", "toy", "info", "--output=", "-q"],
    "issue32-raw-attached-empty": ["--raw=", "-q"],
    "issue32-only-before-dir": ["analyze", "--only", "l1.size", "raw"],
    "issue32-device-above-int-max": ["-d", "2147483648", "info"],
    "issue32-escape-name": ["--sim", "issue32-escape-name.json", "info"],
}


def cli_seeds():
    for name, args in CLI_SEEDS.items():
        write("cli", name + ".args",
              b"\n".join(a if isinstance(a, bytes) else a.encode() for a in args))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sim_config_seeds()
    recording_seeds(sys.argv[1])
    cli_seeds()


if __name__ == "__main__":
    main()
