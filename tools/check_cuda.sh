#!/bin/bash
# Builds the core, `fovea` and the core tests against the LibTorch of a Python environment's
# PyTorch, runs the GPU tests and times the decoder on the GPU beside the reference decoder: one
# command for a machine with a CUDA GPU (docs/cuda.md). Without a GPU the same build runs, the GPU
# tests skip themselves and the timings are the CPU's.
#
#   tools/check_cuda.sh [--build DIR] [--out DIR] [--debs DIR] [--python PY] [--train-seconds S]
#
#   --build DIR          build folder (default build-cuda)
#   --out DIR            where the logs and figures go (default DIR/check under the build folder)
#   --debs DIR           Debian packages (.deb) to unpack into the build folder and build against,
#                        for a machine without the headers and without a network: nlohmann-json3-dev,
#                        libcli11-dev, libgtest-dev, libgmock-dev, libgloo-dev, zlib1g-dev, and
#                        dataset-fashion-mnist for --train-seconds (apt-get download NAME on a
#                        Debian 12 machine fetches each)
#   --python PY          the Python whose torch gives LibTorch (default python3)
#   --train-seconds S    also run the default recipe (`fovea train`) for at most S seconds and
#                        record its log, from which steps per second follow (default 0: not run)
set -euo pipefail

build=build-cuda out="" debs="" python=python3 train_seconds=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --debs) debs=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --train-seconds) train_seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "check_cuda.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
source_dir=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build"
build=$(cd "$build" && pwd)
out=${out:-$build/check}
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"

torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') ||
  { echo "check_cuda.sh: '$python' has no torch (pass --python)" >&2; exit 2; }
"$python" - <<'EOF' | tee -a "$out/summary.txt"
import torch
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
print(f"== torch {torch.__version__}, CUDA {torch.version.cuda}, GPU: {gpu}")
EOF

prefix="$torch_prefix"
cmake_extra=()
if [ -n "$debs" ]; then
  deps="$build/deps"
  mkdir -p "$deps"
  shopt -s nullglob
  packages=("$debs"/*.deb)
  [ ${#packages[@]} -gt 0 ] || { echo "check_cuda.sh: no .deb files in $debs" >&2; exit 2; }
  for f in "${packages[@]}"; do dpkg -x "$f" "$deps"; done
  prefix="$prefix;$deps/usr"
  if [ -f "$deps/usr/include/zlib.h" ]; then
    # zlib1g-dev's libz.so points at the runtime library, which the machine has as libz.so.1.
    zlib=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1 || true)
    cmake_extra+=(-DZLIB_INCLUDE_DIR="$deps/usr/include" ${zlib:+-DZLIB_LIBRARY="$zlib"})
  fi
  if [ -d "$deps/usr/share/datasets/fashion-mnist" ]; then
    export FOVEA_FASHION_MNIST="$deps/usr/share/datasets/fashion-mnist"
  fi
fi

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
# The distribution's g++: one that links libstdc++ statically binds to LibTorch's copy (docs/cuda.md).
compiler=$(command -v /usr/bin/g++ || command -v g++)
log "configure ($compiler, LibTorch from $torch_prefix)"
cmake -S "$source_dir" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$compiler" \
  -DFOVEA_WITH_GUI=OFF -DFOVEA_WITH_OPENCV=OFF -DFOVEA_WITH_CAIRO=OFF -DCMAKE_PREFIX_PATH="$prefix" \
  "${cmake_extra[@]}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep -h "CUDA graphs" "$out/configure.log" | tee -a "$out/summary.txt" || true
log "build"
start=$(date +%s)
cmake --build "$build" --target fovea fovea_core_tests -j "$(nproc)" > "$out/build.log" 2>&1 ||
  { grep -m 20 -A 5 'error' "$out/build.log"; exit 1; }
log "built in $(( $(date +%s) - start )) s"

status=0
log "GPU tests"
"$build/tests/fovea_core_tests" --gtest_filter='*CUDA*:DataParallel.*' > "$out/tests.log" 2>&1 || status=1
grep -E '^\[ +(OK|FAILED|SKIPPED) +\] .* \([0-9]+ ms\)$|^\[ +(PASSED|FAILED) +\] [0-9]' "$out/tests.log" |
  tee -a "$out/summary.txt" || true

device=cpu
"$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' && device=cuda
log "bench on $device (one case a process)"
: > "$out/bench.jsonl"
for case in sgemm decoder_train_step decoder_train_step_hard beam_search greedy_batch; do
  "$build/app/fovea" bench --device "$device" --repeat 10 --warmup 3 --case "$case" > "$out/bench.$case.jsonl" \
    2> "$out/bench.$case.log" || status=1
  cat "$out/bench.$case.jsonl" >> "$out/bench.jsonl"
  "$python" - "$out/bench.$case.jsonl" "$case" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("case") == sys.argv[2]:
        rate = f", {r['gflops']:.0f} GFLOP/s" if r.get("gflops") else ""
        share = f", {100 * r['fraction_of_sgemm']:.0f}% of sgemm" if r.get("fraction_of_sgemm") else ""
        print(f"{r['case']}: median {1000 * r['median_s']:.2f} ms{rate}{share}")
EOF
done

# Beam search again with its step eager (no CUDA graph), and the operators per word on this device.
FOVEA_CUDA_GRAPHS=0 "$build/app/fovea" bench --device "$device" --repeat 10 --warmup 3 --case beam_search \
  > "$out/bench.beam_search_eager.jsonl" 2> "$out/bench.beam_search_eager.log" || status=1
"$python" - "$out/bench.beam_search_eager.jsonl" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r.get("case") == "beam_search":
        print(f"beam_search without the CUDA graph: median {1000 * r['median_s']:.2f} ms")
EOF
"$build/app/fovea" bench --device "$device" --case op_count > "$out/bench.op_count.jsonl" 2> "$out/bench.op_count.log" || status=1
"$python" - "$out/bench.op_count.jsonl" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r.get("case") == "op_count":
        for k in ("training_step", "training_step_autograd_step_by_step", "beam_search"):
            print(f"op_count {k} on {r['device']}: {r[k]['ops_per_word']:.1f} operators per word")
EOF

log "the reference decoder (tools/reference_decoder.py) on $device, on the same captions"
lengths=$("$python" -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("case") == "decoder_train_step": print(",".join(map(str, r["config"]["caption_lengths"])))' \
  "$out/bench.decoder_train_step.jsonl" || true)
if "$python" "$source_dir/tools/reference_decoder.py" --device "$device" --repeat 10 --warmup 3 \
    ${lengths:+--lengths "$lengths"} > "$out/reference.jsonl" 2> "$out/reference.log"; then
  "$python" - "$out/bench.jsonl" "$out/reference.jsonl" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
def medians(path):
    return {r["case"]: r["median_s"] for r in map(json.loads, open(path)) if r.get("median_s")}
fovea, reference = medians(sys.argv[1]), medians(sys.argv[2])
for case, seconds in reference.items():
    ratio = f", Fovea {reference[case] / fovea[case]:.1f}x faster" if case in fovea else ""
    print(f"reference {case}: median {1000 * seconds:.2f} ms{ratio}")
EOF
else
  status=1
  tail -5 "$out/reference.log"
fi

if [ "$train_seconds" -gt 0 ]; then
  log "default recipe on $device for at most $train_seconds s"
  rm -rf "$out/run"
  start=$(date +%s)
  rc=0
  timeout --signal INT "$train_seconds" "$build/app/fovea" train --device "$device" --out "$out/run" \
    > "$out/train.log" 2>&1 || rc=$?
  log "train: exit $rc after $(( $(date +%s) - start )) s (124: stopped at the limit; the run folder and log are in $out)"
  tail -5 "$out/train.log" | tee -a "$out/summary.txt"
fi
log "logs in $out"
exit $status
