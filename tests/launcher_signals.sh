#!/usr/bin/env bash
# The launcher of `fovea train --processes 2` and its workers live and die together: a launcher
# killed with -9 leaves no worker training on (they die with it), and SIGTERM sent to the
# launcher's pid alone stops the whole run at its next step, resumable; SIGHUP stops a run the
# same way, and a reader that goes away does not end it. fp32, tiny model.
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
. "$(dirname "$0")/lib/tiny_run.sh"
work_in "$WORK"
export OMP_WAIT_POLICY=PASSIVE

TINY+=(--max-steps 100000)
children() { cat /proc/"$1"/task/*/children 2>/dev/null || true; }
# Waits until run $1 has a checkpoint and a logged step, with launcher $2 alive (2 minutes at most).
wait_for_training() {
  for _ in $(seq 1 1200); do
    [ -f "$1/last.ckpt" ] && grep -q '"kind":"train"' "$1/metrics.jsonl" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { cat "$1.log"; fail "$1: the run ended before its first logged step"; }
    sleep 0.1
  done
  fail "$1 logged no step in 2 minutes"
}
# Whether any of the pids $@ still runs (zombies do not count).
any_alive() {
  for p in "$@"; do
    [ -d /proc/"$p" ] && [ "$(awk '{print $3}' /proc/"$p"/stat 2>/dev/null)" != Z ] && return 0
  done
  return 1
}

echo "== kill -9 of the launcher: its workers die with it"
setsid "$FOVEA" train --processes 2 --out orphans "${TINY[@]}" > orphans.log 2>&1 &
launcher=$!
wait_for_training orphans "$launcher"
workers=$(children "$launcher")
[ "$(echo "$workers" | wc -w)" = 2 ] || fail "expected 2 workers under the launcher, found: $workers"
kill -9 "$launcher"
for _ in $(seq 1 600); do any_alive $workers || break; sleep 0.1; done
any_alive $workers && { ps -o pid,stat,args -p "$(echo $workers | tr ' ' ,)"; fail "workers still run 60 s after the launcher was killed"; }
echo "ok: both workers ended"

echo "== SIGTERM to the launcher's pid alone stops the run, resumable"
"$FOVEA" train --processes 2 --out stopped "${TINY[@]}" > stopped.log 2>&1 &
launcher=$!
wait_for_training stopped "$launcher"
kill -TERM "$launcher"
for _ in $(seq 1 1200); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
kill -0 "$launcher" 2>/dev/null && fail "the run still trains 2 minutes after SIGTERM to its launcher"
rc=0
wait "$launcher" || rc=$?
[ "$rc" = 130 ] || { cat stopped.log; fail "the launcher exited $rc after SIGTERM (expected 130, interrupted)"; }
grep -q "stopped at step" stopped.log || { cat stopped.log; fail "the run did not say where it stopped"; }
"$FOVEA" train --resume stopped --max-steps 5 > resumed.log 2>&1 || { cat resumed.log; fail "the stopped run did not resume"; }
echo "ok: stopped with exit 130 and resumed"

echo "== SIGHUP (the terminal closed) stops a run at a checkpoint; a closed pipe does not end it"
"$FOVEA" train --out hup "${TINY[@]}" > hup.log 2>&1 &
pid=$!
wait_for_training hup "$pid"
kill -HUP "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 130 ] || { cat hup.log; fail "a run sent SIGHUP exited $rc (expected 130, interrupted at a checkpoint)"; }
grep -q "stopped at step" hup.log || { cat hup.log; fail "the run did not say where it stopped"; }
# The reader (head) leaves after one line; the run must go on to its last step and checkpoint.
"$FOVEA" train --out piped "${TINY[@]/100000/40}" 2>&1 | head -1 > /dev/null
[ "$("$FOVEA" info piped/last.ckpt | jq .saved_at_step)" = 40 ] || fail "a run whose reader left did not finish its 40 steps"
echo "ok: stopped at a checkpoint on SIGHUP; finished with its reader gone"

echo "== a hard run diverging in 2 processes: all stop at the same step, the reason said once"
HARD=(--attention hard --backbone none --image-size 32 --encoder-widths 8,16,32 --embed-dim 16 --attention-dim 16
      --hidden-dim 48 --train-scenes 64 --val-scenes 16 --batch 16 --precision fp32 --pretrain-steps 0)
rc=0
"$FOVEA" train --processes 2 --out hard-stop "${HARD[@]}" --lr 1e20 --max-steps 20 > hard-stop.log 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat hard-stop.log; fail "a diverging hard run exited $rc (expected 1)"; }
[ "$(grep -c 'the run stopped' hard-stop.log)" = 1 ] || { cat hard-stop.log; fail "the reason was not said exactly once"; }
grep -q -e 'frame #' -e 'multinomial' hard-stop.log && { cat hard-stop.log; fail "a stack trace reached the user"; }
grep -q '(pid ' hard-stop.log && { cat hard-stop.log; fail "the launcher blamed a process for a stop every process agreed on"; }
echo "ok: stopped, said once"
"$FOVEA" train --processes 2 --out hard-rollback "${HARD[@]}" --train-scenes 640 --lr 1e6 --max-steps 40 --on-nonfinite rollback \
  > hard-rollback.log 2>&1 || { cat hard-rollback.log; fail "a hard run rolling back in 2 processes did not finish"; }
grep -q 'back to the checkpoint of step' hard-rollback.log || { cat hard-rollback.log; fail "no rollback was said"; }
[ "$(jq -s '[.[] | select(.kind=="train")] | last | .step' hard-rollback/metrics.jsonl)" = 40 ] ||
  fail "the rolled-back run did not reach step 40"
echo "ok: rolled back together and finished"

echo "== a worker stopped with SIGSTOP: the first process says it waits, and the run goes on after SIGCONT"
FOVEA_STALL_WARNING_S=3 "$FOVEA" train --processes 2 --out stalled "${TINY[@]}" > stalled.log 2>&1 &
launcher=$!
wait_for_training stalled "$launcher"
worker=""
for c in $(children "$launcher"); do
  tr '\0' '\n' < /proc/"$c"/environ 2>/dev/null | grep -x "RANK=1" > /dev/null && worker=$c
done
[ -n "$worker" ] || fail "no process with RANK=1 under the launcher"
kill -STOP "$worker"
for _ in $(seq 1 300); do grep -q "for the other processes in" stalled.log && break; sleep 0.1; done
grep -q "for the other processes in" stalled.log || { kill -CONT "$worker"; cat stalled.log; fail "a stopped peer was not said within 30 s"; }
steps=$(grep -c '"kind":"train"' stalled/metrics.jsonl || true)
kill -CONT "$worker"
for _ in $(seq 1 600); do [ "$(grep -c '"kind":"train"' stalled/metrics.jsonl || true)" -gt "$steps" ] && break; sleep 0.1; done
[ "$(grep -c '"kind":"train"' stalled/metrics.jsonl || true)" -gt "$steps" ] || fail "the run did not go on after SIGCONT"
kill -TERM "$launcher"
rc=0
wait "$launcher" || rc=$?
[ "$rc" = 130 ] || { cat stalled.log; fail "the launcher exited $rc after SIGTERM (expected 130)"; }
echo "ok: the stall was said, and the run went on"
