#!/usr/bin/env bash
# Sets everything up and launches fovea-studio on the shipped default model (the sample scenes
# open on first launch). Without a display it runs under Xvfb and saves a screenshot instead.
# Extra arguments go to fovea-studio (e.g. an image, --model M, --compare models/fashion-hard.ckpt).
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/build.sh
MODEL="${FOVEA_MODEL:-models/fashion-soft.ckpt}"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec ./build/app/fovea-studio --model "$MODEL" "$@"
fi
echo "No display: running fovea-studio under Xvfb and saving fovea-studio.png"
exec xvfb-run -a -s "-screen 0 1400x1000x24" ./build/app/fovea-studio --model "$MODEL" --screenshot fovea-studio.png "$@"
