# Sourced by the shell tests, after `set -euo pipefail`, with the script's arguments: the fovea
# under test (the first argument, as an absolute path), the folder the test works in (the last),
# and how a test fails.

FOVEA="$(realpath "$1")"
WORK="${!#}"

fail() { echo "FAIL: $*" >&2; exit 1; }

# Works in folder $1, emptied first (what an earlier run left there goes).
work_in() {
  rm -rf "$1"
  mkdir -p "$1"
  cd "$1"
}
