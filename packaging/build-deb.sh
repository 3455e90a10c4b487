#!/usr/bin/env bash
# Builds the Debian package build/fovea_VERSION_ARCH.deb from build/ (dependencies computed
# from the shared libraries it links) and checks it: desktop-file-validate, appstreamcli
# validate and lintian (no errors allowed). Install it with: sudo apt install ./build/fovea_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/install-deps.sh dpkg-dev lintian
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOVEA_REQUIRE_GUI=ON
cmake --build build --parallel "$(nproc)"
(cd build && cpack -G DEB)
deb=$(ls -t build/fovea_*.deb | head -1)
desktop-file-validate packaging/desktop/io.github.fovea.Studio.desktop
appstreamcli validate --no-net --explain packaging/desktop/io.github.fovea.Studio.metainfo.xml
lintian --fail-on error "$deb"
echo "built $deb"
