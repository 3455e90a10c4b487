#!/usr/bin/env bash
# Sets everything up and runs Fovea on the shipped default model: captions the sample scenes,
# then prints the per-word attention of the first one as JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/build.sh
MODEL="${FOVEA_MODEL:-models/fashion-soft.ckpt}"
./build/app/fovea info "$MODEL" | head -n 12
./build/app/fovea caption --model "$MODEL" resources/samples/*.png
