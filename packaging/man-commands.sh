#!/usr/bin/env bash
# Writes a help2man include file with each `fovea` subcommand's --help, so the manual page
# documents every option: man-commands.sh FOVEA OUT
set -euo pipefail
fovea="$1"
out="$2"
{
  echo "[COMMANDS]"
  for cmd in $("$fovea" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
    echo ".SS \"fovea $cmd\""
    echo ".nf"
    "$fovea" "$cmd" --help | sed -e 's/\\/\\\\/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"
    echo ".fi"
  done
} > "$out"
