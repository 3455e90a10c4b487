# Sourced by the multi-process training tests: the settings of a tiny fp32 model on a few scenes
# (the built-in CNN, no pretraining), and readers of its run folder.

TINY=(--backbone none --image-size 32 --encoder-widths 8,16,32 --embed-dim 16 --attention-dim 16 --hidden-dim 48 --dropout 0
      --train-scenes 32 --val-scenes 16 --batch 16 --lr 0.01 --lr-decay 1 --epochs 1000 --patience 1000 --precision fp32
      --pretrain-steps 0)
# The steps run $1 logged, as a JSON array.
train_steps() { jq -s '[.[] | select(.kind=="train") | .step]' "$1/metrics.jsonl"; }
