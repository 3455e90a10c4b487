#!/usr/bin/env bash
# `cmake --install` into a scratch prefix, then the installed programs from another folder: they
# find the shipped models and samples through the prefix (nothing compiled in), and the desktop
# entry and AppStream metadata validate; the Python module (when built) imports from the prefix's
# dist-packages and finds the installed model. install_layout.sh BUILD_DIR WORK_DIR [PYTHON]
set -euo pipefail
BUILD="$1"
WORK="$2"
PYTHON="${3:-}"
rm -rf "$WORK"
mkdir -p "$WORK/elsewhere"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log" || { cat "$WORK/install.log"; fail "cmake --install"; }
P="$WORK/prefix"
for f in bin/fovea share/fovea/models/fashion-soft.ckpt share/fovea/models/fashion-soft.md share/fovea/models/fashion-hard.ckpt share/fovea/models/fashion-soft-paper.ckpt \
         share/fovea/models/fashion-encoder.pt share/fovea/samples/captions.json share/fovea/samples/test_00000.png share/doc/fovea/copyright; do
  [ -f "$P/$f" ] || fail "not installed: $f"
done

cd "$WORK/elsewhere"
caption=$(env -u FOVEA_MODEL "$P/bin/fovea" caption "$P/share/fovea/samples/test_00000.png") || fail "installed fovea caption failed"
grep -q -E "test_00000.png	a .+" <<< "$caption" || fail "no caption: $caption"
env -u FOVEA_MODEL "$P/bin/fovea" info > info.json || fail "fovea info without --model"
grep -q "\"path\": \"$P/share/fovea/models/fashion-soft.ckpt\"" info.json || { cat info.json; fail "the default model is not the installed one"; }
"$P/bin/fovea" train --help > train-help.txt || fail "installed fovea train --help failed"
grep -q -F "=$(realpath "$P")/share/fovea/models/fashion-encoder.pt" train-help.txt \
  || { cat train-help.txt; fail "the recipe does not start from the installed encoder"; }
FOVEA_MODEL="$P/share/fovea/models/fashion-hard.ckpt" "$P/bin/fovea" info | grep '"attention": "hard"' > /dev/null || fail "FOVEA_MODEL is not used"

if [ -n "$PYTHON" ]; then
  for f in lib/python3/dist-packages/fovea/__init__.py lib/python3/dist-packages/fovea/_show.py; do
    [ -f "$P/$f" ] || fail "not installed: $f"
  done
  ls "$P"/lib/python3/dist-packages/fovea/_core.*.so > /dev/null 2>&1 || fail "not installed: the module's _core"
  # As `apt install ./fovea_*.deb` leaves it: /usr/lib/python3/dist-packages is on Debian's
  # python3 path; PYTHONPATH stands for it here.
  env -u FOVEA_MODEL PYTHONPATH="$P/lib/python3/dist-packages" "$PYTHON" -c '
import fovea, sys
m = fovea.load()
r = m.caption(fovea.samples_dir() + "/test_00000.png")
print(m.path, fovea.samples_dir(), r.text, sep="\n")' > python.txt 2>&1 || { cat python.txt; fail "import fovea from the prefix"; }
  grep -q -x "$P/share/fovea/models/fashion-soft.ckpt" python.txt || { cat python.txt; fail "the module does not load the installed model"; }
  grep -q -x "$P/share/fovea/samples" python.txt || { cat python.txt; fail "the module does not find the installed samples"; }
  grep -q -E "^a .+" python.txt || { cat python.txt; fail "no caption from the installed module"; }
fi

if [ -f "$P/bin/fovea-studio" ]; then
  for f in share/applications/io.github.fovea.Studio.desktop share/metainfo/io.github.fovea.Studio.metainfo.xml \
           share/icons/hicolor/scalable/apps/io.github.fovea.Studio.svg; do
    [ -f "$P/$f" ] || fail "not installed: $f"
  done
  desktop-file-validate "$P/share/applications/io.github.fovea.Studio.desktop" | grep -v "hint:" | grep . && fail "desktop entry"
  appstreamcli validate --no-net "$P/share/metainfo/io.github.fovea.Studio.metainfo.xml" > appstream.txt \
    || { cat appstream.txt; fail "AppStream metadata"; }
  # Without a display (over ssh): --help answers, a window start says why it cannot, no abort.
  env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$P/bin/fovea-studio" --help > studio-help.txt 2>&1 \
    || { cat studio-help.txt; fail "fovea-studio --help without a display"; }
  grep "Usage:" studio-help.txt > /dev/null || { cat studio-help.txt; fail "fovea-studio --help printed no usage"; }
  rc=0; env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$P/bin/fovea-studio" > studio-nodisplay.txt 2>&1 || rc=$?
  [ "$rc" = 1 ] && grep "no display" studio-nodisplay.txt > /dev/null \
    || { cat studio-nodisplay.txt; fail "fovea-studio without a display: exit $rc, not a message and exit 1"; }
  # --screenshot of what cannot be shown is refused, as the CLI refuses it, not shown as another.
  sample="$P/share/fovea/samples/test_00000.png"
  [ -f "$sample" ] || fail "not installed: $sample"
  rc=0; env -u DISPLAY "$P/bin/fovea-studio" "$sample" --word 99 --screenshot w99.png > studio-word.txt 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q -- "--word 99: the caption has" studio-word.txt && [ ! -e w99.png ] \
    || { cat studio-word.txt; fail "fovea-studio --word past the caption's end: exit $rc"; }
  rc=0; env -u DISPLAY "$P/bin/fovea-studio" "$sample" --probe 500,500,600,600 --screenshot p.png > studio-probe.txt 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q -- "--probe: .*covers no part of the image" studio-probe.txt \
    || { cat studio-probe.txt; fail "fovea-studio --probe outside the image: exit $rc"; }
fi
echo "installed layout OK"
