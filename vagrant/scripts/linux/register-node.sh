#!/usr/bin/env bash
# Runs on the control plane once a node has joined: gives it the pod CIDR of the plan (the
# controller manager does not allocate them) and the lab's labels.
# Usage: register-node.sh NODE POD_CIDR LABEL=VALUE...
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

node=$1 pod_cidr=$2
shift 2
k() { kubectl --kubeconfig=/etc/kubernetes/admin.conf "$@"; }

for _ in $(seq 1 90); do
  k get node "$node" >/dev/null 2>&1 && break
  sleep 2
done
k get node "$node" >/dev/null || hl_die "node $node did not register within 180 s" "$HL_EXIT_TRANSIENT"

current=$(k get node "$node" -o jsonpath='{.spec.podCIDR}')
if [[ -z $current ]]; then
  k patch node "$node" --type merge -p "{\"spec\":{\"podCIDR\":\"$pod_cidr\",\"podCIDRs\":[\"$pod_cidr\"]}}" >/dev/null
  hl_changed "node $node podCIDR $pod_cidr"
elif [[ $current != "$pod_cidr" ]]; then
  hl_die "node $node has podCIDR $current, the plan says $pod_cidr (a node's podCIDR cannot change; recreate it)"
else
  hl_ok "node $node podCIDR $pod_cidr"
fi

if [[ $# -gt 0 ]]; then
  result=$(k label node "$node" --overwrite "$@")
  case $result in
    *" not labeled") hl_ok "labels of $node" ;;
    *) hl_changed "labels of $node: $*" ;;
  esac
fi
