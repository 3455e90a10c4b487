#!/usr/bin/env bash
# The project's size limits hold: no source file over 450 lines (split a file by responsibility
# rather than squeezing it), and at most 40 `fovea train` options. Usage: source_limits.sh REPO FOVEA
set -u
repo=$1
fovea=$2
failures=0
while read -r lines file; do
  [ "$file" = total ] && continue
  if [ "$lines" -gt 450 ]; then
    echo "FAIL: $file has $lines lines (the limit is 450)"
    failures=$((failures + 1))
  fi
done < <(cd "$repo" && find core ui app tests tools python -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \) -print0 |
         xargs -0 wc -l)
options=$("$fovea" train --help | grep -cE '^ +--[a-z]')
if [ "$options" -gt 40 ]; then
  echo "FAIL: fovea train --help lists $options options besides --help (the limit is 40)"
  failures=$((failures + 1))
else
  echo "ok: fovea train has $options options"
fi
exit $((failures > 0))
