#!/usr/bin/env bash
# The README's "Train on Flickr8k" commands end to end, CI-sized: a generated 200-image Karpathy
# corpus in place of Flickr8k, a random-weight VGG16 export in place of torchvision's weights, at
# 64 px (VGG16's conv5_3: 4x4x512) with small layers and a few steps. Each command as the README
# writes it, plus what says it worked: the annotations of every split computed once (by `fovea
# features`; `fovea train` and `fovea eval` run VGG16 on no image), a model that evaluates and
# captions, and that captions the same copied alone to another folder with the backbone file gone
# (CLI, Python, fovea-studio); an image changed in place computed again, alone.
# Usage: flickr8k_walkthrough.sh FOVEA WORK [FOVEA_STUDIO] (skipped where that is not built).
# FOVEA_WALKTHROUGH=full makes it the release rehearsal of Flickr8k at full size: 8,000 images
# at 224 px (VGG16's conv5_3: 14x14x512), the README's decoder (512 wide) for two epochs,
# validated on 1,000 images and evaluated on the 1,000 test images (docs/datasets.md).
# Needs python3-torchvision.
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
WORK="$2"  # not the last argument: the studio may follow
STUDIO="${3:-}"
SCRIPT="$(cd "$(dirname "$0")/../tools" && pwd)/export_backbone.py"
PY=/usr/bin/python3
work_in "$WORK"
export OMP_WAIT_POLICY=PASSIVE FOVEA_CACHE_DIR="$WORK/cache"
"$PY" -c 'import torchvision' 2> /dev/null || fail "torchvision is missing: apt-get install python3-torchvision (packaging/install-deps.sh does)"

# The downloaded files: a Karpathy split file with its images, and the VGG16 export.
if [[ "${FOVEA_WALKTHROUGH:-}" == full ]]; then
  COUNT=8000 SIZE=224 GRID=14x14x512 VAL=1000
  MODEL=(--embed-dim 512 --attention-dim 512 --hidden-dim 512 --epochs 2)
else
  COUNT=200 SIZE=64 GRID=4x4x512 VAL=25
  MODEL=(--embed-dim 32 --attention-dim 32 --hidden-dim 48 --batch 25 --max-steps 8 --precision fp32)
fi
SECONDS=0
said() { echo "walkthrough: $* (${SECONDS} s so far)"; }
"$FOVEA" data fashion-scenes --format karpathy --out data/Flicker8k_Dataset --count $COUNT --image-size $SIZE > data.log
mv data/Flicker8k_Dataset/dataset.json data/dataset_flickr8k.json
TRAIN=$(jq '[.images[] | select(.split == "train")] | length' data/dataset_flickr8k.json)
"$PY" "$SCRIPT" vgg16 vgg16-conv5.pt --random --image-size $SIZE > export.log 2>&1 || { cat export.log; fail "export failed"; }
grep -q "$SIZE px -> ${GRID} annotations" export.log || { cat export.log; fail "unexpected grid"; }
said "$COUNT images ($TRAIN for training) and the VGG16 export"

D=(--dataset karpathy:data/dataset_flickr8k.json --images data/Flicker8k_Dataset)
# The validation images as train will take them (--val-scenes, the same in both commands).
"$FOVEA" features "${D[@]}" --backbone vgg16-conv5.pt --image-size $SIZE --val-scenes $VAL > features.out 2> features.log \
  || { cat features.log; fail "fovea features failed"; }
grep -q "computing the annotations of $TRAIN images" features.log || { cat features.log; fail "features: not the $TRAIN training images"; }
said "fovea features"
for split in train val test; do  # every split, computed once
  cache="$(awk -v s=$split '$1 == s {print $2}' features.out)"
  [[ -f "$cache" && "$cache" == "$WORK"/cache/annotations-*.bin ]] || { cat features.out; fail "features: no finished $split cache"; }
done
cache="$(awk '$1 == "train" {print $2}' features.out)"

"$FOVEA" train --out runs/f8k "${D[@]}" --backbone vgg16-conv5.pt --image-size $SIZE --min-count 5 --val-scenes $VAL "${MODEL[@]}" > train.log 2>&1 \
  || { cat train.log; fail "training failed"; }
grep -q "annotations of .* from $cache" train.log || { cat train.log; fail "train did not read the cache fovea features built"; }
if grep -q "computing the annotations" train.log; then cat train.log; fail "train computed the annotations again"; fi
grep -q "grid $GRID" train.log || { cat train.log; fail "the model did not take VGG16's $GRID grid"; }
grep -q "the encoder ran on 0 images in this session" train.log || { cat train.log; fail "train ran VGG16 (validation, familiarity)"; }

said "fovea train"
"$FOVEA" eval -m runs/f8k/best.ckpt "${D[@]}" --split test --json > eval.json 2> eval.log || { cat eval.log; fail "eval failed"; }
jq -e --argjson n $(((COUNT - TRAIN) / 2)) '.scenes == $n and has("Bleu_4") and has("CIDEr")' eval.json > /dev/null \
  || { cat eval.json; fail "eval output"; }
grep -q "the encoder ran on 0 images" eval.log || { cat eval.log; fail "eval ran VGG16 on the test images"; }
said "fovea eval on the test split"
mkdir -p my-photos
cp data/Flicker8k_Dataset/test_0000[0-2].jpg my-photos/
"$FOVEA" caption -m runs/f8k/best.ckpt my-photos/*.jpg > captions.txt 2> caption.log || { cat caption.log; fail "caption failed"; }
[[ "$(grep -c . captions.txt)" -ge 3 ]] || { cat captions.txt; fail "not a caption per photo"; }

"$FOVEA" caption -m runs/f8k/best.ckpt --json my-photos/test_00000.jpg > here.json 2> /dev/null || fail "caption --json failed"

# The model alone, in another folder, with the backbone file gone: it holds its backbone.
mkdir -p elsewhere
cp runs/f8k/best.ckpt elsewhere/model.ckpt
mv vgg16-conv5.pt vgg16-conv5.pt.away
(cd elsewhere && "$FOVEA" caption -m model.ckpt --json ../my-photos/test_00000.jpg > ../there.json 2> ../there.log) \
  || { cat there.log; fail "the model copied alone does not caption"; }
jq -e --slurpfile a here.json --slurpfile b there.json -n \
  '[$a[0][0].words, $b[0][0].words] as [$x, $y] | ($x | map(.word)) == ($y | map(.word)) and
   ([range(0; $x | length) as $i | [($x[$i].alpha | flatten), ($y[$i].alpha | flatten)] | transpose[] | .[0] - .[1] | fabs]
    | max) < 1e-5' \
  > /dev/null || { cat here.json there.json; fail "the model copied alone captions otherwise"; }
(cd elsewhere && "$FOVEA" info model.ckpt) | jq -e --arg g "$GRID" '.backbone.file == "vgg16-conv5.pt" and .backbone.in_model_file and
  (.backbone.digest | startswith("crc32=")) and (.backbone.grid | map(tostring) | join("x")) == $g and
  (.attention_supervised | not)' > /dev/null \
  || { "$FOVEA" info elsewhere/model.ckpt; fail "info does not name the embedded backbone, or says boxes supervised it"; }
if [[ -n "${PYTHONPATH:-}" ]] && "$PY" -c 'import fovea' 2> /dev/null; then
  (cd elsewhere && "$PY" -c 'import fovea, sys; m = fovea.load("model.ckpt"); print(m.caption("../my-photos/test_00000.jpg").text)') \
    > py.txt 2> py.log || { cat py.log; fail "Python cannot open the model copied alone"; }
  [[ "$(cat py.txt)" == "$(jq -r '[.[0].words[].word] | join(" ")' here.json)" ]] || { cat py.txt; fail "Python captions otherwise"; }
fi
if [[ -n "$STUDIO" && -x "$STUDIO" ]]; then
  (cd elsewhere && QT_QPA_PLATFORM=offscreen timeout 120 "$STUDIO" --model model.ckpt --screenshot ../studio.png ../my-photos/) \
    > studio.log 2>&1 || { cat studio.log; fail "fovea-studio could not show the model copied alone on the photos"; }
  [[ -s studio.png ]] || fail "fovea-studio wrote no screenshot"
fi
mv vgg16-conv5.pt.away vgg16-conv5.pt

# A training image changed in place (same name, new pixels): read again and only its annotations computed again.
cp data/Flicker8k_Dataset/test_00000.jpg data/Flicker8k_Dataset/train_00003.jpg
said "the model copied alone: CLI, Python, fovea-studio"
"$FOVEA" features "${D[@]}" --backbone vgg16-conv5.pt --image-size $SIZE --val-scenes $VAL --verify > features2.out 2> features2.log \
  || { cat features2.log; fail "fovea features after an image changed failed"; }
grep -q "1 image(s) changed since they were cached" features2.log || { cat features2.log; fail "the changed image was not noticed"; }
grep -q "computing the annotations of 1 of $TRAIN images again" features2.log || { cat features2.log; fail "not its annotations alone"; }
grep -q "every entry checked, none damaged" features2.log || { cat features2.log; fail "--verify"; }
said "an image changed in place, and --verify"
echo "flickr8k_walkthrough: all good"
