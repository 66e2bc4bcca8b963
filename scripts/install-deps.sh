#!/usr/bin/env bash
# Installs gputopo's build dependencies from the distribution's packages, where missing.
# Debian/Ubuntu only. Needs root (or sudo) only when something is missing.
set -euo pipefail
# clang and libclang-rt-dev (its sanitizer and libFuzzer runtimes): the sanitize preset.
# hipcc (HIP 5.2.3, LLVM 15; 66 MB to fetch, 353 MB installed, 14 s to install from a warm apt
# cache): the HIP backend, built for gfx90a by the test preset (docs/amd.md).
# libjs-chart.js: Chart.js, inlined into the HTML report. chromium-headless-shell (64 MB to fetch):
# the test that renders that report in a browser (docs/formats.md). libopenmpi-dev and openmpi-bin
# (10 MB to fetch): the MPI plugin of --fleet and its test (docs/fleet.md).
packages=(cmake g++ make nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev
          libbenchmark-dev libhwloc-dev python3 clang libclang-rt-dev hipcc libjs-chart.js
          chromium-headless-shell libopenmpi-dev openmpi-bin)
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
