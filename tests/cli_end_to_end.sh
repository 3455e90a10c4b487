#!/usr/bin/env bash
# End-to-end test of the fovea tool: train a tiny model, kill -9 it mid-run and resume, write
# scenes, caption them (text and JSON), and feed bad files to every loader.
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
MODELS="$(cd "$(dirname "$0")/../models" && pwd)"
work_in "$WORK"
export OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1
export FOVEA_CACHE_DIR="$WORK/cache"

expect_error() {  # expect_error "text that must appear" command...
  local want="$1"; shift
  if "$@" > out.txt 2> err.txt; then fail "expected '$*' to fail"; fi
  grep -q -- "$want" err.txt || { cat err.txt >&2; fail "error of '$*' does not mention '$want'"; }
}

# Epochs of two steps: --lr-decay 1, or the per-epoch decay leaves no learning rate after ~40 steps
# and the models learn nothing (the hard model then captioned with an empty sentence now and then).
# fp32: the same numerics on every machine.
TINY=(--backbone none --image-size 32 --encoder-widths 8,16,32 --embed-dim 16 --attention-dim 16 --hidden-dim 48 --dropout 0
      --train-scenes 32 --val-scenes 16 --batch 16 --lr 0.01 --lr-decay 1 --epochs 1000 --patience 1000 --precision fp32 --pretrain-steps 0)

echo "== train --help: each setting once, at most 42 options, the same keys as the run's config"
"$FOVEA" train --help > help.txt
options=$(grep -o -E '^ +(-h,)?--[a-z0-9-]+' help.txt | sed -E 's/^ +(-h,)?--//' | sort -u)
[ "$(echo "$options" | wc -l)" -le 42 ] || { cat help.txt; fail "fovea train --help lists more than 42 options"; }

echo "== start-up: malloc in transparent huge pages, the user's GLIBC_TUNABLES kept"
GLIBC_TUNABLES=glibc.malloc.arena_max=4 "$FOVEA" bench --case heatmap_render --repeat 1 --warmup 0 > env.jsonl
jq -s -e 'map(select(.case=="environment"))[0].glibc_tunables == "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1"' env.jsonl > /dev/null \
  || { cat env.jsonl; fail "start-up did not add glibc.malloc.hugetlb=1 to the user's GLIBC_TUNABLES"; }
GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$FOVEA" bench --case heatmap_render --repeat 1 --warmup 0 > env.jsonl
jq -s -e 'map(select(.case=="environment"))[0].glibc_tunables == "glibc.malloc.hugetlb=0"' env.jsonl > /dev/null \
  || { cat env.jsonl; fail "start-up overrode the user's glibc.malloc.hugetlb"; }

if [ "$(uname -m)" = x86_64 ]; then
  jq -s -e 'map(select(.case=="environment"))[0].denormals_flushed == true' env.jsonl > /dev/null \
    || { cat env.jsonl; fail "start-up did not flush subnormal floats to zero"; }
fi

echo "== Fovea's own vector kernels no wider than ATEN_CPU_CAPABILITY where it is set"
ATEN_CPU_CAPABILITY=avx2 "$FOVEA" bench --case heatmap_render --repeat 1 --warmup 0 > env.jsonl
jq -s -e 'map(select(.case=="environment"))[0].vector_kernels | . == "AVX2" or . == "portable"' env.jsonl > /dev/null \
  || { cat env.jsonl; fail "ATEN_CPU_CAPABILITY=avx2 left Fovea's kernels on another instruction set"; }
ATEN_CPU_CAPABILITY=default "$FOVEA" bench --case heatmap_render --repeat 1 --warmup 0 > env.jsonl
jq -s -e 'map(select(.case=="environment"))[0].vector_kernels == "portable"' env.jsonl > /dev/null \
  || { cat env.jsonl; fail "ATEN_CPU_CAPABILITY=default left Fovea's kernels vectorised"; }

echo "== OpenBLAS's own thread pool held to --threads (it would otherwise use every core)"
for t in 1 2; do
  "$FOVEA" bench --case heatmap_render --repeat 1 --warmup 0 --threads "$t" > env.jsonl
  jq -s -e --argjson t "$t" 'map(select(.case=="environment"))[0] | (.blas | startswith("OpenBLAS") | not) or .blas_threads == $t' \
    env.jsonl > /dev/null || { cat env.jsonl; fail "fovea bench --threads $t left OpenBLAS another thread count"; }
done

echo "== train, kill -9, resume"
"$FOVEA" train --out run "${TINY[@]}" --max-steps 3000 > train1.log 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  [ -f run/last.ckpt ] && [ "$(jq -s 'map(select(.kind=="train")) | length' run/metrics.jsonl 2>/dev/null || echo 0)" -gt 3 ] && break
  sleep 0.1
done
# While it trains, a second writer is refused, the holder named; so is a new run into the folder.
expect_error "run: another run is writing to this folder (pid $pid on host" "$FOVEA" train --resume run --max-steps 200
kill -9 "$pid" || true
wait "$pid" 2>/dev/null || true
[ -f run/last.ckpt ] || fail "no checkpoint before the kill"
# The kill may land inside a checkpoint write and leave its temporary file (one is made here so the
# check below does not depend on when the kill landed): resuming removes it and says so.
touch run/best.ckpt.tmp-12345
"$FOVEA" train --resume run --max-steps 200 > train2.log 2>&1 || { cat train2.log; fail "resume failed"; }
grep -q "resuming at step" train2.log || fail "resume did not report its step"
grep -q "removed best.ckpt.tmp-12345" train2.log || { cat train2.log; fail "resume did not name the unfinished file it removed"; }
ls run/*.tmp-* 2>/dev/null && fail "temporary checkpoint files left behind after the resume"
# metrics.jsonl: steps strictly increasing across the crash, every line valid JSON.
jq -s -e '[.[] | select(.kind=="train") | .step] as $s | ($s | length) > 10 and ($s == ($s | sort | unique)) and ($s[-1] == 200)' \
  run/metrics.jsonl > /dev/null || fail "metrics.jsonl steps are not a clean sequence up to 200"
[ -f run/best.ckpt ] && [ -f run/MODEL_CARD.md ] || fail "missing best.ckpt or MODEL_CARD.md"
# A step limit the run has passed is refused, naming the step reached; the run stays as it was.
cp run/config.json config-before.json
expect_error "run: the run has reached step 200, past --max-steps 40" "$FOVEA" train --resume run --max-steps 40
cmp -s run/config.json config-before.json || fail "a refused resume rewrote config.json"
[ -f run/failed.json ] && { cat run/failed.json; fail "a refused resume marked the run as failed"; }
# The config's keys are the help's options, less --resume, --paper, --processes and --help.
config_keys=$(jq -r 'del(.version) | keys[] | gsub("_"; "-")' run/config.json | sort)
[ "$config_keys" = "$(echo "$options" | grep -v -x -E 'resume|paper|processes|help')" ] \
  || { diff <(echo "$config_keys") <(echo "$options"); fail "the config's keys and train --help's options differ"; }

echo "== --paper: the paper's objective overrides the recipe's, the encoder pretraining included"
"$FOVEA" train --out paper "${TINY[@]:0:${#TINY[@]}-2}" --paper --pretrain-steps 50 --max-steps 2 > paper.log 2>&1 \
  || { cat paper.log; fail "--paper training failed"; }
grep -q "pretraining the encoder" paper.log && { cat paper.log; fail "--paper pretrained the encoder"; }
jq -e '.pretrain_steps == 0 and .aux_weight == 0 and .attention_supervision == 0 and .init_state == "mean"
       and .penalty_reduction == "sum"' paper/config.json > /dev/null || { cat paper/config.json; fail "--paper left part of the recipe on"; }
expect_error "lr must be > 0" "$FOVEA" train --out badlr "${TINY[@]}" --lr 0
expect_error "attention" "$FOVEA" train --out badatt "${TINY[@]}" --attention medium
expect_error "item-weight" "$FOVEA" train --out gone "${TINY[@]}" --item-weight 1

echo "== a diverging run stops at its first non-finite step, with a non-zero exit that names it"
expect_error "the run stopped" "$FOVEA" train --out diverge "${TINY[@]}" --lr 1e20 --max-steps 40
grep -q -E "step [0-9]+: the [a-zA-Z ]+ is (nan|inf)" err.txt || { cat err.txt; fail "the stop does not name the step and quantity"; }
jq -s -e 'map(select(.kind=="event")) | length == 1 and .[0].action == "stop"' diverge/metrics.jsonl > /dev/null \
  || fail "the stop is not an event in metrics.jsonl"

echo "== --max-steps bounds the whole run, the encoder pretraining included"
"$FOVEA" train --out short "${TINY[@]:0:${#TINY[@]}-2}" --pretrain-steps 1000 --max-steps 12 > short.log 2>&1 \
  || { cat short.log; fail "the short run failed"; }
jq -s -e '(map(select(.kind=="pretrain")) | last | .pretrain_step) == 6 and (map(select(.kind=="val")) | last | .step) == 6' \
  short/metrics.jsonl > /dev/null || { cat short/metrics.jsonl; fail "--max-steps 12 did not bound both phases"; }
grep -q "encoder pretraining step" short.log || { cat short.log; fail "the progress did not name the pretraining phase"; }

echo "== hard attention run with every logged field"
"$FOVEA" train --out hard --attention hard "${TINY[@]}" --init-from run/best.ckpt --max-steps 20 > hard.log 2>&1 || { cat hard.log; fail "hard training failed"; }
jq -s -e 'map(select(.kind=="train"))[0] | has("baseline") and has("reward") and has("reward_var") and has("entropy") and has("tokens_per_s")' \
  hard/metrics.jsonl > /dev/null || fail "hard metrics lack REINFORCE fields"

echo "== eval: the shipped model's captions come from its decoder alone"
"$FOVEA" eval --model "$MODELS/fashion-soft.ckpt" --count 4 --json > shipped.json 2> /dev/null || fail "eval of the shipped model failed"
jq -e 'has("Bleu_4") and (has("cut_out_nouns") or has("mirror_nouns") | not)' shipped.json > /dev/null \
  || { cat shipped.json; fail "eval of the shipped model"; }
# The probe forces alpha onto each object's box: the shipped model names 92% of objects (chance is
# one class in ten); it must stay far above chance, with its own colour and with another one.
"$FOVEA" eval --model "$MODELS/fashion-soft.ckpt" --count 20 --data-seed 11 --probe --json > probe.json 2> /dev/null \
  || fail "eval --probe of the shipped model failed"
jq -e '.probe.count >= 20 and .probe.rate > 0.7 and .probe.other_colour.count > 0 and .probe.other_colour.rate > 0.7' probe.json \
  > /dev/null || { jq .probe probe.json; fail "the shipped model's probe names too few objects"; }
expect_error "cut-out-shift" "$FOVEA" eval --model "$MODELS/fashion-soft.ckpt" --count 4 --cut-out-shift 2
expect_error "class-head" "$FOVEA" eval --model run/best.ckpt --count 4 --class-head
expect_error "the built-in scenes are drawn, not read" "$FOVEA" eval --model run/best.ckpt --count 4 --images scenes

echo "== data and caption"
"$FOVEA" data fashion-scenes --split test --out scenes --count 3 --image-size 32 > /dev/null
[ "$(ls scenes/*.png | wc -l)" -eq 3 ] || fail "expected 3 PNG scenes"
jq -e 'length == 3 and (.[0].captions | length) == 5' scenes/captions.json > /dev/null || fail "captions.json malformed"
"$FOVEA" caption --model run/best.ckpt scenes/*.png > captions.txt
[ "$(wc -l < captions.txt)" -eq 3 ] || fail "expected one caption per image"
"$FOVEA" caption --model run/best.ckpt --json --beam 2 scenes/test_00000.png > caption.json
jq -e '.[0].grid == [4,4] and (.[0].words | length) > 0 and (.[0].words[0].alpha | length) == 4
       and (.[0].words[0].alpha[0] | length) == 4 and (.[0].words[0] | has("beta") and has("log_prob"))
       and ([.[0].words[0].alpha[][]] | add | . > 0.999 and . < 1.001)' caption.json > /dev/null \
  || { cat caption.json; fail "caption --json lacks per-word alpha grids"; }
"$FOVEA" caption --model hard/best.ckpt --sample-glimpses --json scenes/test_00001.png > hard.json
jq -e '.[0].words | length > 0' hard.json > /dev/null || fail "hard model did not caption"
# A seeded draw repeats: same seed, same glimpses (and the same caption).
"$FOVEA" caption --model hard/best.ckpt --sample-glimpses --seed 5 --json scenes/test_00001.png > seeded_a.json
"$FOVEA" caption --model hard/best.ckpt --sample-glimpses --seed 5 --json scenes/test_00001.png > seeded_b.json
cmp -s seeded_a.json seeded_b.json || fail "the same --seed gave different sampled glimpses"

echo "== take-away: the word's attended cells and an equal control removed, both images written"
"$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --word 2 --save taken --json > taken.json
jq -e '(.attended.cells | length) as $n | (.grid[0] * .grid[1]) as $grid
       | $n > 0 and (.control.cells | length) == ([$n, $grid - $n] | min)
       and ([.attended.cells[], .control.cells[]] | length == (unique | length))
       and (.attended.caption | type) == "string" and .p > 0' taken.json > /dev/null \
  || { cat taken.json; fail "take-away --json"; }
[ -s taken-attended.png ] && [ -s taken-control.png ] || fail "take-away --save wrote no images"
expect_error "--word 99: the caption" "$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --word 99
expect_error "--word 99999999999999999999: the caption .* words; give a position from 1 to" \
  "$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --word 99999999999999999999
expect_error "--word -1: the caption .* words; give a position from 1 to" "$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --word -1
expect_error "--caption: empty" "$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --caption " " --word 1
expect_error "region: 999999999999... (400 digits) is not a pixel position" \
  "$FOVEA" probe --model run/best.ckpt scenes/test_00000.png --region "1,1,$(printf '9%.0s' $(seq 400)),5"
expect_error "the image size must be at least 32" "$FOVEA" train --out small "${TINY[@]}" --image-size 16 --max-steps 1
# A word the model does not know is shown as "zebra <unk>", and --word zebra names it.
"$FOVEA" take-away --model run/best.ckpt scenes/test_00000.png --caption "a zebra" --word zebra > zebra.txt \
  || fail "take-away --word zebra did not find the unknown word of its caption"
grep -q 'word 2 "zebra <unk>"' zebra.txt || { cat zebra.txt; fail "the unknown word is not the one taken away"; }

echo "== a Karpathy-format dataset on disk, one image broken"
jq '{images: ([.[] | {filename: .file, imgid: .id, split: "test", sentences: [.captions[] | {raw: .}]}]
              + [{filename: "broken.png", imgid: 99, split: "test", sentences: [{raw: "a broken image"}]}])}' \
  scenes/captions.json > dataset_tiny.json
echo "not a PNG" > scenes/broken.png
"$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_tiny.json --images scenes \
  --json > karpathy_eval.json 2> karpathy_eval.err
grep -q "skipped 1 unreadable image(s), e.g. .*broken.png" karpathy_eval.err || { cat karpathy_eval.err; fail "the skipped image was not named"; }
jq -e '.scenes == 3 and has("Bleu_4") and has("CIDEr")' karpathy_eval.json > /dev/null || fail "karpathy eval output"
ls cache/images-*.bin > /dev/null || fail "no image cache written"
# Faithfulness asked for on data without object boxes: said to be unmeasurable, not rates of 0.
"$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_tiny.json --images scenes --faithfulness --json > faith.json 2> faith.err
jq -e '.faithfulness.measured == false and (.faithfulness | has("faithful_rate") | not)' faith.json > /dev/null \
  || { cat faith.json; fail "faithfulness without boxes was reported as measured"; }
grep -q "faithfulness cannot be measured here" faith.err || { cat faith.err; fail "eval did not say faithfulness cannot be measured"; }
# A split file whose sentences are all empty: named, with what is missing, and no C++ backtrace.
jq '.images |= (map(.split = "train" | .sentences = [{raw: ""}]) | .[0].split = "val")' dataset_tiny.json > dataset_empty.json
expect_error "dataset_empty.json.*give no word seen at least" "$FOVEA" train --out emptyrun "${TINY[@]}" \
  --dataset karpathy:dataset_empty.json --images scenes --train-scenes 0 --val-scenes 1 --batch 1 --max-steps 1
grep -q "frame #" err.txt && { cat err.txt; fail "a C++ backtrace reached the user"; }
# A named pipe among the images is named and skipped, never waited on (timeout: a hang fails).
mkfifo scenes/pipe.png
jq '.images += [{filename: "pipe.png", imgid: 98, split: "test", sentences: [{raw: "a pipe"}]}]' dataset_tiny.json > dataset_pipe.json
timeout 120 "$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_pipe.json --images scenes --json > /dev/null 2> pipe_eval.err \
  || { cat pipe_eval.err; fail "eval with a named pipe among its images failed or hung"; }
grep -q "skipped 2 unreadable image(s)" pipe_eval.err || { cat pipe_eval.err; fail "the named pipe was not skipped"; }
# File names that climb out of --images are refused, the entry named.
jq '.images[0].filename = "../../etc/passwd"' dataset_tiny.json > dataset_escape.json
expect_error 'images\[0\] "../../etc/passwd"' "$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_escape.json --images scenes
# A missing images folder, and a folder given for a file, are named as such.
expect_error "no-such-folder: not a folder: the images of dataset_tiny.json" "$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_tiny.json --images no-such-folder
expect_error "scenes: is a folder, not a JSON file" "$FOVEA" eval --model run/best.ckpt --dataset karpathy:scenes --images scenes
jq '.images[0].split = 7' dataset_tiny.json > dataset_split.json
expect_error "dataset_split.json: images\[0\]: type must be string" "$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_split.json --images scenes
grep -q "json.exception" err.txt && { cat err.txt; fail "the JSON library's own code reached the user"; }
# Its captions as a COCO results file score to the same BLEU-4 through fovea score.
"$FOVEA" eval --model run/best.ckpt --dataset karpathy:dataset_tiny.json --images scenes \
  --json --results results.json --refs-out refs.json > eval2.json 2> /dev/null
jq -e 'length == 3 and (.[0] | has("image_id") and has("caption"))' results.json > /dev/null || fail "results file"
"$FOVEA" score --refs refs.json --results results.json --json > score.json
jq -e --slurpfile e eval2.json '((.Bleu_4 - $e[0].Bleu_4) | fabs) < 1e-9 and ((.CIDEr - $e[0].CIDEr) | fabs) < 1e-9' score.json \
  > /dev/null || fail "fovea score on eval's results differs from fovea eval"

echo "== pretrain-encoder: an encoder file that fovea train starts from; interrupted, the same command goes on"
"$FOVEA" pretrain-encoder --out enc.pt --run encrun --steps 10 --precision fp32 > enc1.log 2>&1 || { cat enc1.log; fail "pretrain-encoder failed"; }
"$FOVEA" pretrain-encoder --out enc.pt --run encrun --steps 20 --precision fp32 > enc2.log 2>&1 || { cat enc2.log; fail "pretrain-encoder did not go on"; }
jq -s -e '[.[] | select(.kind=="pretrain") | .pretrain_step] == [10, 20]' encrun/metrics.jsonl > /dev/null \
  || { cat encrun/metrics.jsonl; fail "the second pretrain-encoder did not go on from step 10"; }
grep -q "encoder written to enc.pt: the built-in CNN (widths 16 32 64 128 128 128 128 128) pretrained 20 steps" enc2.log \
  || { cat enc2.log; fail "pretrain-encoder did not describe what it wrote"; }
"$FOVEA" train --out fromenc --backbone enc.pt --train-scenes 64 --val-scenes 8 --batch 32 --max-steps 2 --precision fp32 \
  > fromenc.log 2>&1 || { cat fromenc.log; fail "training from the encoder file failed"; }
grep -q "encoder: the built-in CNN .* pretrained 20 steps" fromenc.log || { cat fromenc.log; fail "the run did not say its encoder"; }
grep -q "Encoder at the start: the built-in CNN .* pretrained 20 steps" fromenc/MODEL_CARD.md || fail "the model card lacks the encoder"
expect_error "enc.pt: is an encoder file" "$FOVEA" caption --model enc.pt scenes/test_00000.png
expect_error "leave --encoder-widths out" "$FOVEA" train --out badenc --backbone enc.pt --encoder-widths 8,16,32 --max-steps 1

echo "== bad input"
head -c 1000 run/best.ckpt > cut.ckpt
expect_error "cut.ckpt: truncated" "$FOVEA" caption --model cut.ckpt scenes/test_00000.png
echo "not a model" > fake.ckpt
expect_error "fake.ckpt: not a Fovea model file" "$FOVEA" caption --model fake.ckpt scenes/test_00000.png
echo "not an image" > fake.png
expect_error "fake.png: not a readable image" "$FOVEA" caption --model run/best.ckpt fake.png
expect_error "nothing.png: file not found" "$FOVEA" caption --model run/best.ckpt nothing.png
# Named pipes and truncated JPEGs are refused at once (timeout: a hang fails), for every image command.
mkfifo pipe2.png
expect_error "pipe2.png: is not a regular file" timeout 60 "$FOVEA" caption --model run/best.ckpt pipe2.png
expect_error "pipe2.png: is not a regular file" timeout 60 "$FOVEA" probe --model run/best.ckpt pipe2.png --region 1,1
"$FOVEA" data fashion-scenes --format karpathy --out jpegs --count 3 --image-size 64 > /dev/null
head -c 600 jpegs/train_00000.jpg > cut.jpg
expect_error "cut.jpg: truncated JPEG" "$FOVEA" caption --model run/best.ckpt cut.jpg
expect_error "already holds a run" "$FOVEA" train --out run "${TINY[@]}" --max-steps 5
expect_error "no last.ckpt" "$FOVEA" train --resume scenes
expect_error "/dev/zero: is not a regular file" "$FOVEA" caption --model /dev/zero scenes/test_00000.png
# Negative counts and seeds are refused (an unsigned option once read -1 as 2^64 - 1 and ran for ever).
expect_error "count: must be >= 1, got -5" "$FOVEA" eval --model run/best.ckpt --count -5
expect_error "count: must be >= 1, got -1" "$FOVEA" data fashion-scenes --out negative --count -1
[ ! -e negative ] || fail "a refused data command wrote files"
expect_error "seed: must be >= 0, got -1" "$FOVEA" caption --model run/best.ckpt --seed -1 scenes/test_00000.png
expect_error "case: nope not in" "$FOVEA" bench --case nope
# Options that contradict or need another are refused, not silently overruled.
expect_error "requires --sample-glimpses" "$FOVEA" caption --model run/best.ckpt --seed 3 scenes/test_00000.png
expect_error "excludes --greedy" "$FOVEA" caption --model run/best.ckpt --beam 5 --greedy scenes/test_00000.png
"$FOVEA" probe --model run/best.ckpt scenes/test_00000.png --region 1,1 --prefix "a yelow" > out.txt 2> err.txt \
  || fail "probe with an unknown prefix word failed"
grep '"yelow" is not a word of this model' err.txt > /dev/null || { cat err.txt; fail "probe did not say a prefix word is unknown"; }
"$FOVEA" info "$MODELS/fashion-encoder.pt" > encoder-info.json || fail "info could not describe an encoder file"
jq -e '.pretraining.steps > 0 and (.encoder_widths | length) > 0' encoder-info.json > /dev/null \
  || { cat encoder-info.json; fail "info on an encoder file lacks its blocks or pretraining"; }
cp scenes/test_00000.png own.png
expect_error "is the image itself" "$FOVEA" export own.png --model run/best.ckpt --out own.png
cmp -s own.png scenes/test_00000.png || fail "export wrote over its own image"
echo "== videos: clips, captions frame by frame, the annotated video, eval --video, what cannot be opened"
SOFT="$MODELS/fashion-soft.ckpt"
"$FOVEA" data fashion-scenes --video --out clips --count 2 --split val --seconds 0.4 --fps 10 --frame-size 160x120 > /dev/null
[ -s clips/val_00000.mp4 ] && [ -s clips/val_00001.json ] || fail "data --video did not write its clips"
jq -e '.frames | length == 4 and (.[3].objects | length) >= 1 and (.[3].captions | length) == 5' clips/val_00000.json > /dev/null \
  || fail "a clip's annotations lack frames, boxes or captions"
"$FOVEA" caption --model "$SOFT" clips/val_00000.mp4 --every 2 --json > frames.jsonl
[ "$(wc -l < frames.jsonl)" -eq 2 ] || { cat frames.jsonl; fail "caption --every 2 of 4 frames did not give 2 JSON lines"; }
jq -s -e '.[1].frame == 2 and .[1].time == 0.2 and (.[0].words[0].alpha | length) == 14 and (.[0].caption | length) > 0' frames.jsonl \
  > /dev/null || fail "caption VIDEO --json lacks the frame, its time, the caption or alpha"
"$FOVEA" export --model "$SOFT" clips/val_00000.mp4 --out annotated.avi | grep "4 frames" > /dev/null || fail "export VIDEO did not write 4 frames"
"$FOVEA" eval --model "$SOFT" --video clips --json > video_eval.json
jq -e '.clips == 2 and .frames == 8 and .phrases > 0 and .changes_per_second >= 0' video_eval.json > /dev/null \
  || { cat video_eval.json; fail "eval --video"; }
expect_error "missing.mp4: file not found" "$FOVEA" caption --model "$SOFT" missing.mp4
# FFmpeg's own log lines ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x...] moov atom not found") stay out of what the user reads.
head -c "$(( $(stat -c %s clips/val_00000.mp4) / 2 ))" clips/val_00000.mp4 > half.mp4
"$FOVEA" caption --model "$SOFT" half.mp4 > half.out 2> half.err || true
grep -q "@ 0x" half.err && { cat half.err; fail "FFmpeg's log reached the user"; }
expect_error "/dev/video97: no such camera" "$FOVEA" caption --model "$SOFT" /dev/video97
expect_error "captions.json: not a clip annotation file" "$FOVEA" eval --model "$SOFT" --video scenes
# A clip cut short (half its file) is not scored as if whole: eval names the video and fails.
"$FOVEA" data fashion-scenes --video --out cut --count 1 --split val --seconds 0.4 --fps 10 --frame-size 160x120 --video-format mkv > /dev/null
head -c "$(( $(stat -c %s cut/val_00000.mkv) / 2 ))" cut/val_00000.mkv > half.mkv && mv half.mkv cut/val_00000.mkv
expect_error "cut/val_00000.mkv: the video ends after" "$FOVEA" eval --model "$SOFT" --video cut
# Captioned or exported, it goes as far as it can, with a warning naming it and where it ends.
for command in "caption cut/val_00000.mkv" "export cut/val_00000.mkv --out cut.avi"; do
  "$FOVEA" $command --model "$SOFT" > cut.out 2> cut.err || { cat cut.err; fail "$command: a clip cut short was refused"; }
  grep -q "^fovea: warning: cut/val_00000.mkv: the video ends after [0-9]* of the 4 frames its header gives" cut.err \
    || { cat cut.err; fail "$command: a clip cut short was not said to be"; }
done
# Annotations that make no sense, or a video outside the clip's folder, are refused by entry, in plain words.
mkdir -p escape nonsense
jq '.video = "../../../etc/passwd"' clips/val_00000.json > escape/val_00000.json
expect_error 'escape/val_00000.json: not a clip annotation file ("video": "../../../etc/passwd" lies outside the clip' \
  "$FOVEA" eval --model "$SOFT" --video escape
cp clips/val_00000.mp4 nonsense/
jq '.fps = 0 | del(.width)' clips/val_00000.json > nonsense/val_00000.json
expect_error 'nonsense/val_00000.json: not a clip annotation file ("fps": a frame rate of 0' "$FOVEA" eval --model "$SOFT" --video nonsense
jq 'del(.width)' clips/val_00000.json > nonsense/val_00000.json
expect_error 'nonsense/val_00000.json: not a clip annotation file ("width": no "width")' "$FOVEA" eval --model "$SOFT" --video nonsense
grep -q "json.exception" err.txt && { cat err.txt; fail "the JSON library's own code reached the user"; }
expect_error "a video is exported as a video" "$FOVEA" export --model "$SOFT" clips/val_00000.mp4 --out frame.png
# A full disk (here a file-size limit: writes past 4 KiB fail, SIGXFSZ ignored) cuts the video
# short without OpenCV saying so: the export fails, names the file, and the video there is kept.
cp annotated.avi kept.avi
expect_error "kept.avi: write failed" bash -c "trap '' XFSZ; ulimit -f 4; exec \"$FOVEA\" export --model \"$SOFT\" clips/val_00000.mp4 --out kept.avi"
cmp -s annotated.avi kept.avi || fail "a failed export replaced the video it was to overwrite"
ls kept.tmp-* 2> /dev/null && fail "a failed export left its temporary file"
# A run on a full disk fails naming the first file it could not write (the checkpoint), and its
# folder says so where there is room (failed.json), rather than naming failed.json.
expect_error "fullrun/last.ckpt: write failed" bash -c "trap '' XFSZ; ulimit -f 40; exec \"$FOVEA\" train --out fullrun ${TINY[*]} --max-steps 2"
grep -q "failed.json" err.txt && { cat err.txt; fail "the error names the failure record, not what failed first"; }
jq -e '.error | test("last.ckpt: write failed")' fullrun/failed.json > /dev/null || fail "the failed run's folder does not say why"
mkdir folder.mp4
expect_error "folder.mp4: is a folder" "$FOVEA" export --model "$SOFT" clips/val_00000.mp4 --out folder.mp4
echo "cli end-to-end: all good"
