#!/usr/bin/env bash
# Installs every Debian package Fovea needs to build, test and run, and any packages named as
# arguments (packaging/build-deb.sh adds its tools). Safe to run repeatedly; skips apt when
# everything is already present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev libopenblas0-pthread libgloo-dev libdnnl-dev
  libopencv-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libqt6svg6 qt6-image-formats-plugins
  libgl-dev
  nlohmann-json3-dev libcli11-dev zlib1g-dev
  libcairo2-dev libpango1.0-dev
  libgtest-dev poppler-utils
  dataset-fashion-mnist
  qt6-qpa-plugins fonts-dejavu-core
  jq xvfb xauth
  python3-torch python3-torchvision  # torchrun and tools/export_backbone.py, and their tests
  python3-dev pybind11-dev python3-numpy python3-pytest python3-matplotlib  # the Python module (python/) and its tests
  python3-ipython  # a notebook cell run in a real IPython shell (tests/python/test_show.py)
  desktop-file-utils appstream help2man
  chromium  # tests open the exported web pages in it, headless and offline
  "$@"
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "Installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
