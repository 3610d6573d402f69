#!/usr/bin/env bash
# Registers the bootstrap token the harness made (read from standard input, never an argument)
# for the workers that join in this run; it expires after two hours.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

IFS= read -r token || true
[[ $token =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || hl_die "no bootstrap token on standard input"
id=${token%%.*}
admin=/etc/kubernetes/admin.conf
if kubeadm token list --kubeconfig="$admin" -o jsonpath='{.token}{"\n"}' 2>/dev/null | grep -q "^$id\."; then
  hl_ok "join token $id present"
  exit 0
fi
kubeadm token create "$token" --kubeconfig="$admin" --ttl 2h --description "hybrid-lab join" >/dev/null
hl_changed "join token $id created (ttl 2h)"
