#!/usr/bin/env bash
# Applies the manifests the harness rendered from the plan (flannel, the Windows DaemonSets, the
# cluster DNS stand-in); a lab that needs none (bridge CNI, CoreDNS) has an empty folder.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dir=$HL_STAGE/config/manifests
[[ -d $dir ]] || hl_die "$dir is missing; the harness uploads it"
if ! compgen -G "$dir/*.yaml" >/dev/null; then
  hl_ok "no manifests for this lab"
  exit 0
fi
output=$(kubectl --kubeconfig=/etc/kubernetes/admin.conf apply -f "$dir")
while read -r line; do
  case $line in
    *" unchanged") hl_ok "$line" ;;
    *" created" | *" configured") hl_changed "$line" ;;
    *) hl_log "$line" ;;
  esac
done <<<"$output"
