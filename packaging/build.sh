#!/usr/bin/env bash
# Installs the Debian packages Fovea needs, then configures and builds it (Release) in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOVEA_REQUIRE_GUI=ON
cmake --build build --parallel "$(nproc)"
