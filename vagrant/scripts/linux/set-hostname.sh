#!/usr/bin/env bash
# The machine's hostname is its Kubernetes node name, as on any real cluster: what a
# host-network pod reports as its hostname, and a name the node itself resolves.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

echo "$HL_NODE_NAME" | hl_write_file /etc/hostname 644 || true
if [[ $(hostname) == "$HL_NODE_NAME" ]]; then
  hl_ok "hostname $HL_NODE_NAME"
else
  hostname "$HL_NODE_NAME"
  hl_changed "hostname $HL_NODE_NAME"
fi

# Debian's convention for the machine's own name: one 127.0.1.1 line.
if grep -Eq "^127\.0\.1\.1[[:space:]]+$HL_NODE_NAME([[:space:]]|$)" /etc/hosts; then
  hl_ok "/etc/hosts names $HL_NODE_NAME"
else
  sed -i '/^127\.0\.1\.1[[:space:]]/d' /etc/hosts
  printf '127.0.1.1\t%s\n' "$HL_NODE_NAME" >>/etc/hosts
  hl_changed "/etc/hosts names $HL_NODE_NAME"
fi
