#!/usr/bin/env bash
# tools/export_backbone.py end to end: a torchvision ResNet (random weights: nothing is
# downloaded) cut after a stage, written as TorchScript, loaded by `fovea train --backbone` for
# a few steps; and the errors of a wrong model name or cut. Needs python3-torchvision.
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
SCRIPT="$(cd "$(dirname "$0")/../tools" && pwd)/export_backbone.py"
PY=/usr/bin/python3  # Debian's, with python3-torch and python3-torchvision
work_in "$WORK"
export OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1
"$PY" -c 'import torchvision' 2> /dev/null || fail "torchvision is missing: apt-get install python3-torchvision (packaging/install-deps.sh does)"

"$PY" "$SCRIPT" resnet18 r18.pt --random --cut layer2 --image-size 64 > export.log 2>&1 || { cat export.log; fail "export failed"; }
grep -q "64 px -> 8x8x128 annotations" export.log || { cat export.log; fail "unexpected grid: $(cat export.log)"; }
"$FOVEA" train --out run --backbone r18.pt --image-size 64 --embed-dim 16 --attention-dim 16 --hidden-dim 32 \
  --train-scenes 32 --val-scenes 8 --batch 16 --max-steps 2 --precision fp32 --pretrain-steps 0 > train.log 2>&1 \
  || { cat train.log; fail "training on the exported backbone failed"; }
grep -q "grid 8x8x128" train.log || { cat train.log; fail "the model did not take the backbone's 8x8x128 grid"; }
"$FOVEA" info run/best.ckpt > info.txt || fail "fovea info cannot read the run's model"

if "$PY" "$SCRIPT" alexnet a.pt --random > bad.log 2>&1; then fail "alexnet was accepted"; fi
grep -q "only vgg\* and resnet\* are known" bad.log || { cat bad.log; fail "no clear error for an unknown model"; }
if "$PY" "$SCRIPT" resnet18 b.pt --random --cut layer9 > bad.log 2>&1; then fail "--cut layer9 was accepted"; fi
grep -q "\-\-cut must be one of" bad.log || { cat bad.log; fail "no clear error for a bad --cut"; }
echo "export_backbone: all good"
