#!/usr/bin/env bash
# On a GPU machine: the outputs of issue 17 on real hardware (docs/formats.md, docs/library.md,
# docs/fleet.md).
#   - gputopo report: the main job on GPU 0 as the HTML page (with --raw), its time, and the page
#     again from that recording (the same plots);
#   - the MT4G export and the Markdown summary of another run of the main job;
#   - examples/tile_size built against the installed library, on GPU 0;
#   - gputopo --fleet under mpirun (Open MPI carried in BIN_DIR/ompi.tgz, relocated with
#     OPAL_PREFIX): rank 0 on GPU 0, rank 1 on the simulated H100 (MPMD).
# usage: scripts/device-outputs.sh OUT_DIR
# BIN_DIR (default .devbin) holds gputopo and libgputopo_mpi.so built with the `device` preset,
# prefix/ (cmake --install of that build), tile_size and ompi.tgz. Changes nothing about the GPU.
set -uo pipefail
out=${1:?usage: device-outputs.sh OUT_DIR}
bin=$(realpath "${BIN_DIR:-.devbin}")
mkdir -p "$out"
codes="$out/exit-codes.txt"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv,noheader \
  > "$out/nvidia-smi.csv" 2>&1

start=$(date +%s%N)
timeout 120 "$bin/gputopo" report -o "$out/report.html" --raw /tmp/gputopo-raw \
  > "$out/report.txt" 2> "$out/report.err"
echo "report exit $? in $((($(date +%s%N) - start) / 1000000)) ms" >> "$codes"
timeout 120 "$bin/gputopo" report /tmp/gputopo-raw -q -o "$out/report-replayed.html" \
  > /dev/null 2>> "$out/report.err"
echo "report DIR exit $?" >> "$codes"
for f in report.html report-replayed.html; do
  echo "$f: $(grep -o '<canvas data-plot=' "$out/$f" | wc -l) canvases, $(stat -c %s "$out/$f") B" \
    >> "$codes"
done

timeout 120 "$bin/gputopo" -q --format mt4g -o "$out/mt4g.json" > /dev/null 2> "$out/formats.err"
echo "--format mt4g exit $?" >> "$codes"
timeout 120 "$bin/gputopo" -q --format markdown > "$out/summary.md" 2>> "$out/formats.err"
echo "--format markdown exit $?" >> "$codes"

LD_LIBRARY_PATH="$bin/prefix/lib" timeout 120 "$bin/tile_size" --gpu 0 > "$out/tile_size.txt" \
  2> "$out/tile_size.err"
echo "tile_size exit $?" >> "$codes"

ompi=/tmp/gputopo-ompi
rm -rf "$ompi" && mkdir -p "$ompi" && tar -xzf "$bin/ompi.tgz" -C "$ompi"
export OPAL_PREFIX="$ompi/usr" PATH="$ompi/usr/bin:$PATH"
export LD_LIBRARY_PATH="$ompi/libs:$ompi/usr/lib/x86_64-linux-gnu/openmpi/lib"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_MCA_btl=self,vader
timeout 180 mpirun -np 1 "$bin/gputopo" --fleet -q -o "$out/fleet.json" : \
  -np 1 "$bin/gputopo" --fleet --sim h100-sxm -q > "$out/fleet.txt" 2> "$out/fleet.err"
echo "mpirun --fleet exit $?" >> "$codes"
cat "$codes"
