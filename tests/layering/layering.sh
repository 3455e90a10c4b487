#!/usr/bin/env bash
# Builds each layering probe (tests/layering/CMakeLists.txt) and checks that it compiles exactly
# when the table says so, and that a refused one fails for the right reason: its header is not
# found from that layer. Usage: layering.sh BUILD_DIR TARGET:FROM:HEADER:yes|no ...
set -u
build=$1
shift
failures=0
# A probe that did the wrong thing: why, and the compiler's first errors where $2 holds its output.
failed() {
  echo "FAIL: $1"
  [ -z "${2:-}" ] || grep -m5 -E 'error|fatal' <<<"$2"
  failures=$((failures + 1))
}
for row in "$@"; do
  IFS=: read -r target from header compiles <<<"$row"
  out=$(cmake --build "$build" --target "$target" 2>&1)
  status=$?
  if [ "$compiles" = yes ]; then
    if [ $status -ne 0 ]; then
      failed "$from may include $header, but the probe did not compile:" "$out"
    else
      echo "ok: $from includes $header"
    fi
  elif [ $status -eq 0 ]; then
    failed "$from must not include $header, yet it compiled"
  elif ! grep -q "$header: No such file or directory" <<<"$out"; then
    failed "$from including $header failed, but not because the header is out of reach:" "$out"
  else
    echo "ok: $from cannot include $header"
  fi
done
exit $((failures > 0))
