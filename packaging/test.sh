#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/build.sh
ctest --test-dir build --output-on-failure --parallel 2 --timeout 900
