#!/usr/bin/env bash
# Takes docs/matrix.png, the README's picture of matrix.html, from a real run: a lab of its own
# (the default `hybrid` preset, emulated, under a unique name and its own LAB_HOME) → the suite →
# matrix.html rendered by Debian's headless chromium → lab down, on every path.
#
# usage: docs/screenshot.sh [OUT.png]      (root; default docs/matrix.png; `npm run docs:screenshot`)
# Environment: SCREENSHOT_SIZE=W,H         chromium's window size (default 1280,940)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/docs/matrix.png}")
SIZE=${SCREENSHOT_SIZE:-1280,940}
[[ "$SIZE" =~ ^[0-9]+,[0-9]+$ ]] || { echo "screenshot: SCREENSHOT_SIZE=$SIZE: expected W,H" >&2; exit 64; }
[ "$(id -u)" -eq 0 ] || { echo "screenshot: needs root (a netns lab)" >&2; exit 64; }
cd "$ROOT"

log() { printf '%s screenshot: %s\n' "$(date +%T)" "$*"; }

# What a netns lab needs (the README's quickstart packages) and the browser that renders the page.
APT_PACKAGES=(iproute2 iptables nftables conntrack iputils-ping procps chromium)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A name no other lab on this machine has: the lab id (hl-<name>) stamps everything it creates.
NAME="docs-shot-$$"
WORK=$(mktemp -d /tmp/hl-screenshot.XXXXXX)
export LAB_HOME="$WORK/lab-home" RESULTS_DIR="$WORK/results"
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -e "$LAB_HOME/$NAME" ]; then
    log "lab down $NAME"
    npm run --silent lab:down -- --lab "$NAME" || status=1
  else # an up that crashed: what it left carries the lab id
    npm run --silent lab -- reap --lab "$NAME" || status=1
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

sed "s/^name: hybrid$/name: $NAME/" lab/presets/hybrid.yaml >"$WORK/lab.yaml"
grep -q "^name: $NAME$" "$WORK/lab.yaml" || { echo "screenshot: the hybrid preset has no 'name: hybrid' line" >&2; exit 1; }

log "lab up $NAME"
npm run --silent lab:up -- --spec "$WORK/lab.yaml"
log "npm test"
# A picture of a red run would go into the docs unnoticed: only a green run is taken.
npm test >"$WORK/suite.log" 2>&1 || { tail -40 "$WORK/suite.log" >&2; echo "screenshot: the suite failed; no picture taken" >&2; exit 1; }
grep -E '^ +[0-9]+ (passing|pending)' "$WORK/suite.log" || true

log "rendering matrix.html at $SIZE"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$WORK/chromium" --window-size="$SIZE" --screenshot="$WORK/matrix.png" \
  "file://$RESULTS_DIR/matrix.html" >"$WORK/chromium.log" 2>&1 || { cat "$WORK/chromium.log" >&2; exit 1; }
# A PNG starts with \x89PNG; chromium can exit 0 having written nothing.
[ "$(head -c 4 "$WORK/matrix.png" 2>/dev/null | tail -c 3)" = PNG ] || { cat "$WORK/chromium.log" >&2; echo "screenshot: chromium wrote no PNG" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
cp "$WORK/matrix.png" "$OUT"
log "wrote $OUT ($(stat -c %s "$OUT") bytes)"
