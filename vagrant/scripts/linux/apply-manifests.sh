#!/usr/bin/env bash
# Applies the manifests the harness rendered from the plan (flannel, the Windows DaemonSets).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=$HL_STAGE/config/manifests
compgen -G "$dir/*.yaml" >/dev/null || hl_die "no manifests in $dir"
output=$(kubectl --kubeconfig=/etc/kubernetes/admin.conf apply -f "$dir")
while read -r line; do
  case $line in
    *" unchanged") hl_ok "$line" ;;
    *" created" | *" configured") hl_changed "$line" ;;
    *) hl_log "$line" ;;
  esac
done <<<"$output"
