#!/usr/bin/env bash
# Creates the given folders under the node's artifact folder, then prints "sha256  path" of every
# file in it, so the harness uploads only what is missing or different. Runs as the SSH user.
set -euo pipefail
root=${HL_STAGE:-/opt/hybrid-lab}/artifacts
mkdir -p "$root"
for dir in "$@"; do
  case $dir in */../* | ../* | /*) echo "hl: error: bad folder $dir" >&2 && exit 2 ;; esac
  mkdir -p "$root/$dir"
done
cd "$root"
find . -type f ! -name '*.part' -printf '%P\0' | sort -z | xargs -0 -r sha256sum --
