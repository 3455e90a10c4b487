#!/usr/bin/env bash
# The project's size limits hold: no source file over 450 lines (split a file by responsibility
# rather than squeezing it), and at most 40 `fovea train` options. Also that no shell script run with
# `set -o pipefail` pipes into `grep -q`: grep stops at its first match, the writer then dies of
# SIGPIPE, and the pipeline fails or passes by the scheduler's whim (read the file or use
# `grep PATTERN > /dev/null`). And that no code or test names an issue, bug or snag number.
# Usage: source_limits.sh REPO FOVEA
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
done < <(cd "$repo" && find core launch ui app tests tools python -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \) -print0 |
         xargs -0 wc -l)
while IFS= read -r hit; do
  echo "FAIL: $hit pipes into grep -q under pipefail (a race: see this script's header)"
  failures=$((failures + 1))
done < <(cd "$repo" && grep -l 'set -[a-z]*o pipefail' tests/*.sh tools/*.sh .ci/run 2>/dev/null | xargs -r grep -nE '\|[[:space:]]*grep[[:space:]]+(-[a-zA-Z]*[[:space:]]+)*-[a-zA-Z]*q')
# Code and tests speak of the code, not of the tracker: no issue, bug or snag numbers.
while IFS= read -r hit; do
  echo "FAIL: $hit names a tracker number; say what the code does instead"
  failures=$((failures + 1))
done < <(cd "$repo" && grep -rniE '\b(issue|snag)s? #?[0-9]|\bbugs? [0-9]+(-[0-9]+)?[,)]' core launch ui app tests tools python \
           --include='*.cpp' --include='*.h' --include='*.sh' --include='*.py' --include=CMakeLists.txt |
           grep -v 'GCC bug')  # an upstream compiler's bug report is a reference, not our tracker
options=$("$fovea" train --help | grep -cE '^ +--[a-z]')
if [ "$options" -gt 40 ]; then
  echo "FAIL: fovea train --help lists $options options besides --help (the limit is 40)"
  failures=$((failures + 1))
else
  echo "ok: fovea train has $options options"
fi
exit $((failures > 0))
