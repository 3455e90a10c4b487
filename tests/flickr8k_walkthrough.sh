#!/usr/bin/env bash
# The README's "Train on Flickr8k" commands end to end, CI-sized: a generated 200-image Karpathy
# corpus in place of Flickr8k, a random-weight VGG16 export in place of torchvision's weights, at
# 64 px (VGG16's conv5_3: 4x4x512) with small layers and a few steps. Each command as the README
# writes it, plus what says it worked: the annotations computed once (by `fovea features`, reused
# by `fovea train`), a model that evaluates and captions, fovea-studio showing it on the images.
# Usage: flickr8k_walkthrough.sh FOVEA WORK [FOVEA_STUDIO] (skipped where that is not built).
# Needs python3-torchvision.
set -euo pipefail
FOVEA="$(realpath "$1")"
WORK="$2"
STUDIO="${3:-}"
SCRIPT="$(cd "$(dirname "$0")/../tools" && pwd)/export_backbone.py"
PY=/usr/bin/python3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
export OMP_WAIT_POLICY=PASSIVE FOVEA_CACHE_DIR="$WORK/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" -c 'import torchvision' 2> /dev/null || fail "torchvision is missing: apt-get install python3-torchvision (packaging/install-deps.sh does)"

# The downloaded files: a Karpathy split file with its images, and the VGG16 export.
"$FOVEA" data fashion-scenes --format karpathy --out data/Flicker8k_Dataset --count 200 --image-size 64 > data.log
mv data/Flicker8k_Dataset/dataset.json data/dataset_flickr8k.json
"$PY" "$SCRIPT" vgg16 vgg16-conv5.pt --random --image-size 64 > export.log 2>&1 || { cat export.log; fail "export failed"; }
grep -q "64 px -> 4x4x512 annotations" export.log || { cat export.log; fail "unexpected grid"; }

D=(--dataset karpathy:data/dataset_flickr8k.json --images data/Flicker8k_Dataset)
SMALL=(--embed-dim 32 --attention-dim 32 --hidden-dim 48 --batch 25 --max-steps 8 --val-scenes 25 --precision fp32)
"$FOVEA" features "${D[@]}" --backbone vgg16-conv5.pt --image-size 64 > features.out 2> features.log \
  || { cat features.log; fail "fovea features failed"; }
grep -q "computing the annotations of 150 images" features.log || { cat features.log; fail "features: not the 150 training images"; }
cache="$(cat features.out)"
[[ -f "$cache" && "$cache" == "$WORK"/cache/annotations-*.bin ]] || fail "features: no finished cache at '$cache'"

"$FOVEA" train --out runs/f8k "${D[@]}" --backbone vgg16-conv5.pt --image-size 64 --min-count 5 "${SMALL[@]}" > train.log 2>&1 \
  || { cat train.log; fail "training failed"; }
grep -q "annotations of .* from $cache" train.log || { cat train.log; fail "train did not read the cache fovea features built"; }
if grep -q "computing the annotations" train.log; then cat train.log; fail "train computed the annotations again"; fi
grep -q "grid 4x4x512" train.log || { cat train.log; fail "the model did not take VGG16's 4x4x512 grid"; }

"$FOVEA" eval -m runs/f8k/best.ckpt "${D[@]}" --split test --json > eval.json 2> eval.log || { cat eval.log; fail "eval failed"; }
jq -e '.scenes == 25 and has("Bleu_4") and has("CIDEr")' eval.json > /dev/null || { cat eval.json; fail "eval output"; }
mkdir -p my-photos
cp data/Flicker8k_Dataset/test_0000[0-2].jpg my-photos/
"$FOVEA" caption -m runs/f8k/best.ckpt my-photos/*.jpg > captions.txt 2> caption.log || { cat caption.log; fail "caption failed"; }
[[ "$(grep -c . captions.txt)" -ge 3 ]] || { cat captions.txt; fail "not a caption per photo"; }

if [[ -n "$STUDIO" && -x "$STUDIO" ]]; then
  QT_QPA_PLATFORM=offscreen timeout 120 "$STUDIO" --model runs/f8k/best.ckpt --screenshot studio.png my-photos/ > studio.log 2>&1 \
    || { cat studio.log; fail "fovea-studio could not show the trained model on the photos"; }
  [[ -s studio.png ]] || fail "fovea-studio wrote no screenshot"
fi
echo "flickr8k_walkthrough: all good"
