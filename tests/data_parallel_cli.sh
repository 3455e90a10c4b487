#!/usr/bin/env bash
# Data-parallel training from the command line: kill -9 one process of `fovea train --processes 2`
# (the other stops, the launcher names the process), resume the run with one process and then
# with two; a Karpathy-format dataset written by `fovea data --format karpathy` trained by two
# processes (the image cache built once); and, where torchrun is installed, a killed worker that
# `torchrun --max_restarts` restarts from the last checkpoint (standalone and static launches), and
# two agents on this machine standing in for two nodes (static and c10d rendezvous); a process whose
# peers never join says what it waits for. fp32, tiny model.
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
. "$(dirname "$0")/lib/tiny_run.sh"
work_in "$WORK"
export OMP_WAIT_POLICY=PASSIVE

# Waits until run $1, trained by process $3 (logging to $4), has a checkpoint and more than $2
# logged steps (at most 2 minutes).
wait_for_steps() {
  for _ in $(seq 1 1200); do
    [ -f "$1/last.ckpt" ] && [ "$(jq -s 'map(select(.kind=="train")) | length' "$1/metrics.jsonl" 2>/dev/null || echo 0)" -gt "$2" ] && return 0
    kill -0 "$3" 2>/dev/null || { cat "$4"; fail "$1: the training ended before it logged $2 steps"; }
    sleep 0.1
  done
  fail "$1 logged no steps in 2 minutes"
}
# The process with RANK=$2 among the children of $1.
child_with_rank() {
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    tr '\0' '\n' < /proc/"$c"/environ 2>/dev/null | grep -x "RANK=$2" > /dev/null && { echo "$c"; return 0; }
  done
  return 1
}
# Waits at most 2 minutes for pid $1 (a child of this shell) to end; its exit status in $rc.
wait_exit() {
  for _ in $(seq 1 1200); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$1" 2>/dev/null && fail "process $1 still runs 2 minutes after its peer died (a hang)"
  rc=0
  wait "$1" || rc=$?
}
# Kills the worker of RANK=1 under torchrun agent $agent, which trains run $1 logging to $2 with
# --max_restarts 1 and --max-steps 400: the restarted group resumes from last.ckpt and finishes,
# its steps one clean sequence. $3 names the launch in failures.
kill_a_worker_and_resume() {
  wait_for_steps "$1" 3 "$agent" "$2"
  worker=$(child_with_rank "$agent" 1) || fail "$3: no worker with RANK=1"
  kill -9 "$worker"
  wait_exit "$agent"
  [ "$rc" = 0 ] || { cat "$2"; fail "$3 did not finish after a restart (exit $rc)"; }
  grep -q "resuming at step" "$2" || { cat "$2"; fail "$3: the restarted group did not resume from last.ckpt"; }
  train_steps "$1" | jq -e '(. == (sort | unique)) and (.[-1] == 400)' > /dev/null || fail "$3: the steps are not one clean sequence"
}
# Waits for the agents of both nodes of 2-node run $1 (node N logging to $1N.log), which must exit 0.
wait_for_nodes() {
  for node in 0 1; do
    wait_exit "${agents[$node]}"
    [ "$rc" = 0 ] || { cat "$1$node.log"; fail "$1: node $node exited $rc"; }
  done
}

echo "== a process whose peers never come says what it waits for, with the address and the settings to check"
port=$(( 20000 + RANDOM % 20000 ))
rc=0
FOVEA_STALL_WARNING_S=2 WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 8 \
  "$FOVEA" train --out alone "${TINY[@]}" --max-steps 2 > alone.log 2>&1 || rc=$?
[ "$rc" = 124 ] || { cat alone.log; fail "a process without its peers exited $rc before the timeout"; }
grep -q "for the other 1 of 2 processes to join at 127.0.0.1:$port" alone.log || { cat alone.log; fail "the wait was not said"; }
echo "ok: said"

echo "== --processes 2, kill -9 of the second process: the first stops, the launcher names the dead one"
"$FOVEA" train --processes 2 --out run "${TINY[@]}" --max-steps 100000 > dp1.log 2>&1 &
launcher=$!
wait_for_steps run 3 "$launcher" dp1.log
worker=$(child_with_rank "$launcher" 1) || fail "no process with RANK=1 under the launcher"
kill -9 "$worker"
wait_exit "$launcher"
[ "$rc" = 3 ] || { cat dp1.log; fail "the launcher exited $rc after a process was killed (expected 3: a process died)"; }
grep -q "^fovea: error: process 1 of 2 (pid $worker) was killed by signal 9 (Killed)$" dp1.log \
  || { cat dp1.log; fail "the launcher did not name the killed process in one line"; }
for said in dp1.log run/failed.json; do  # Gloo's "[./gloo/transport/tcp/pair.cc:598]" is not the user's
  if [ -f "$said" ] && grep -E '\.(cc|cpp|h):[0-9]+\]' "$said"; then fail "$said: a library's source location reached the user"; fi
done
[ -z "$(cat /proc/"$launcher"/task/*/children 2>/dev/null)" ] || fail "processes left running"

echo "== --processes 2 killed while it starts: the folder it created holds no run, so it goes or says why"
"$FOVEA" train --processes 2 --out early "${TINY[@]}" --max-steps 100000 > early.log 2>&1 &
launcher=$!
for _ in $(seq 1 600); do [ -e early/.fovea-run.lock ] && break; sleep 0.02; done
[ -e early/.fovea-run.lock ] || { cat early.log; fail "the run never took its folder's lock"; }
# Both processes, once both exist (under load the lock can come before the second is started).
pids=""
for _ in $(seq 1 600); do
  pids="$(child_with_rank "$launcher" 0) $(child_with_rank "$launcher" 1)" && [ "$(echo $pids | wc -w)" = 2 ] && break
  sleep 0.05
done
[ "$(echo $pids | wc -w)" = 2 ] || { kill "$launcher"; cat early.log; fail "the launcher never started its two processes"; }
kill -9 $pids
wait_exit "$launcher"
[ "$rc" = 3 ] || { cat early.log; fail "the launcher exited $rc after its processes were killed (expected 3)"; }
# (Killed after its first checkpoint, the folder holds a run it can resume: that stays.)
if [ -e early ] && ! [ -f early/failed.json ] && ! [ -f early/last.ckpt ]; then
  ls -la early; fail "a folder holding no run stayed, saying nothing"
fi
echo "ok: $( [ -e early ] && echo "early/failed.json: $(jq -r .error early/failed.json)" || echo "no folder left")"

echo "== the 2-process run resumes in one process, then in two"
"$FOVEA" train --resume run --max-steps 120 > resume1.log 2>&1 || { cat resume1.log; fail "resuming with one process failed"; }
grep -q "resuming at step" resume1.log || fail "resume did not report its step"
"$FOVEA" train --processes 2 --resume run --max-steps 160 > resume2.log 2>&1 || { cat resume2.log; fail "resuming with two processes failed"; }
grep -q "2 processes, 8 images each a step" resume2.log || { cat resume2.log; fail "the resumed run did not use 2 processes"; }
steps=$(train_steps run)
echo "$steps" | jq -e '(length > 10) and (. == (sort | unique)) and (.[-1] == 160)' > /dev/null \
  || fail "metrics.jsonl steps are not one clean sequence up to 160 across the kill and both resumes: $steps"
[ "$(grep -c "resuming at step" resume2.log)" = 1 ] || fail "more than one process reported"

echo "== a Karpathy-format dataset on disk, trained by two processes"
"$FOVEA" data fashion-scenes --format karpathy --out kp --count 48 --image-size 64 > kp.log 2>&1 || { cat kp.log; fail "karpathy export failed"; }
jq -e '(.images | length) == 48 and ([.images[] | select(.split == "val")] | length) == 6
       and ([.images[] | select(.split == "test")] | length) == 6 and (.images[0].sentences | length) == 5
       and (.images[0].sentences[0].tokens | length) > 2' kp/dataset.json > /dev/null || fail "kp/dataset.json is not a 48-image Karpathy file"
[ "$(ls kp/*.jpg | wc -l)" = 48 ] || fail "not 48 JPEG files"
FOVEA_CACHE_DIR="$WORK/cache" "$FOVEA" train --processes 2 --out kprun --dataset karpathy:kp/dataset.json --images kp \
  "${TINY[@]}" --max-steps 4 > kprun.log 2>&1 || { cat kprun.log; fail "training on the Karpathy dataset failed"; }
grep -q "caching 32 images at 32 px" kprun.log || { cat kprun.log; fail "the first process did not cache the training images"; }
[ "$(find "$WORK/cache" -type f | wc -l)" = 2 ] || { find "$WORK/cache"; fail "expected two image caches (train, val) and nothing else"; }
jq -s -e '[.[] | select(.kind=="train")] | length >= 1' kprun/metrics.jsonl > /dev/null || fail "no training steps logged"

echo "== under torchrun, a failing process writes its reason where the agent reads it (TORCHELASTIC_ERROR_FILE)"
if TORCHELASTIC_ERROR_FILE="$WORK/error.json" "$FOVEA" train --resume not-a-run > /dev/null 2>&1; then fail "resuming no run succeeded"; fi
jq -e '(.message.message | test("not-a-run: no last.ckpt")) and (.message.extraInfo.timestamp | tonumber > 0)' error.json > /dev/null \
  || { cat error.json; fail "the error file does not give the reason"; }

if command -v torchrun > /dev/null; then
  echo "== docs/distributed.md's torchrun command as written (with this build's fovea and tiny settings after it)"
  docs="$(cd "$(dirname "$0")/.." && pwd)/docs/distributed.md"
  written=$(grep -m1 '^torchrun --standalone' "$docs" | sed 's/ *#.*//')
  [ -n "$written" ] || fail "docs/distributed.md has no standalone torchrun command"
  read -r -a words <<< "${written/ fovea train / $FOVEA train }"
  "${words[@]}" "${TINY[@]}" --max-steps 4 > documented.log 2>&1 || { cat documented.log; fail "the documented command fails: $written"; }
  [ -f runs/d2/best.ckpt ] && grep -q "finished after 4 steps" documented.log || { cat documented.log; fail "the documented command did not train"; }

  echo "== torchrun --max_restarts 1: a killed worker restarts the group, which resumes from last.ckpt"
  # --redirects 1 --tee 1: Debian 12's torchrun (PyTorch 1.13, Python 3.11) fails on its defaults (0).
  torchrun --standalone --nnodes 1 --nproc_per_node 2 --max_restarts 1 --redirects 1 --tee 1 --no_python "$FOVEA" train --out trun "${TINY[@]}" \
    --max-steps 400 > torchrun.log 2>&1 &
  agent=$!
  kill_a_worker_and_resume trun torchrun.log "torchrun's standalone launch"

  free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  echo "== torchrun's static launch (--master_port, as in SLURM scripts): the workers join the store its agent serves"
  # A killed worker and --max_restarts 1: the restarted group resumes, its keys apart from the first attempt's.
  torchrun --nnodes 1 --node_rank 0 --nproc_per_node 2 --master_addr 127.0.0.1 --master_port "$(free_port)" --max_restarts 1 \
    --redirects 1 --tee 1 --no_python "$FOVEA" train --out static "${TINY[@]}" --max-steps 400 > static.log 2>&1 &
  agent=$!
  kill_a_worker_and_resume static static.log "torchrun's static launch"

  echo "== torchrun on 2 nodes (two agents on this machine): static and c10d rendezvous"
  port=$(free_port)
  for node in 0 1; do
    torchrun --nnodes 2 --node_rank "$node" --nproc_per_node 1 --master_addr 127.0.0.1 --master_port "$port" --redirects 1 --tee 1 \
      --no_python "$FOVEA" train --out static2n "${TINY[@]}" --max-steps 6 > "static2n$node.log" 2>&1 &
    agents[$node]=$!
  done
  wait_for_nodes static2n
  grep -q "2 processes" static2n0.log || { cat static2n0.log; fail "the 2-node static group did not train as 2 processes"; }
  port=$(free_port)
  for node in 0 1; do
    torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" --rdzv_id fovea-test \
      --redirects 1 --tee 1 --no_python "$FOVEA" train --out c10d2n "${TINY[@]}" --max-steps 6 > "c10d2n$node.log" 2>&1 &
    agents[$node]=$!
  done
  wait_for_nodes c10d2n
  grep -q "2 processes" c10d2n0.log c10d2n1.log || fail "the c10d 2-node group did not train as 2 processes"
  grep -q "finished after 6 steps" c10d2n0.log c10d2n1.log || fail "the c10d 2-node run did not reach step 6"
else
  echo "(torchrun not installed: apt-get install python3-torch to test it too)"
fi
echo "data_parallel_cli: all good"
