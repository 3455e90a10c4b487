#!/usr/bin/env bash
# Builds each layering probe (tests/layering/CMakeLists.txt) and checks that it compiles exactly
# when the table says so, and that a refused one fails for the right reason: its header is not
# found from that layer. Usage: layering.sh BUILD_DIR TARGET:FROM:HEADER:yes|no ...
set -u
build=$1
shift
failures=0
for row in "$@"; do
  IFS=: read -r target from header compiles <<<"$row"
  out=$(cmake --build "$build" --target "$target" 2>&1)
  status=$?
  if [ "$compiles" = yes ]; then
    if [ $status -ne 0 ]; then
      echo "FAIL: $from may include $header, but the probe did not compile:"
      echo "$out" | grep -m5 -E 'error|fatal'
      failures=$((failures + 1))
    else
      echo "ok: $from includes $header"
    fi
  else
    if [ $status -eq 0 ]; then
      echo "FAIL: $from must not include $header, yet it compiled"
      failures=$((failures + 1))
    elif ! grep -q "$header: No such file or directory" <<<"$out"; then
      echo "FAIL: $from including $header failed, but not because the header is out of reach:"
      echo "$out" | grep -m5 -E 'error|fatal'
      failures=$((failures + 1))
    else
      echo "ok: $from cannot include $header"
    fi
  fi
done
exit $((failures > 0))
