#!/usr/bin/env bash
# Installs gputopo's build dependencies from the distribution's packages, where missing.
# Debian/Ubuntu only. Needs root (or sudo) only when something is missing.
#
#   scripts/install-deps.sh          what the main job's build (the default preset) needs
#   scripts/install-deps.sh --test   also what the test, sanitize and package presets need
set -euo pipefail
# The main job: a C++20 compiler, CMake, the header libraries, hwloc's header (the library is
# loaded at run time) and libjs-chart.js (Chart.js, inlined into the HTML report).
packages=(cmake g++ make nlohmann-json3-dev libcli11-dev libfmt-dev libhwloc-dev python3
          libjs-chart.js)
# --test: GoogleTest and Google Benchmark; clang and libclang-rt-dev (its sanitizer and libFuzzer
# runtimes): the sanitize preset. hipcc (HIP 5.2.3, LLVM 15; 66 MB to fetch, 353 MB installed):
# the HIP backend, built for gfx90a by the test preset (docs/amd.md). chromium-headless-shell
# (64 MB to fetch): the test that renders the HTML report in a browser (docs/formats.md).
# libopenmpi-dev and openmpi-bin (10 MB to fetch): the MPI plugin of --fleet and its test
# (docs/fleet.md). xz-utils: the recorded GPU runs kept as .txz (tests/data/runs).
if [ "${1:-}" = "--test" ]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-dev hipcc
             chromium-headless-shell libopenmpi-dev openmpi-bin xz-utils)
elif [ -n "${1:-}" ]; then
  echo "gputopo: install-deps.sh: unknown option $1 (expected --test or nothing)" >&2
  exit 2
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "gputopo: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
