#!/usr/bin/env bash
# `kubeadm init --config` with the config the harness generated from the plan. A control plane
# that is already up with the same config is left alone; one with a different config is refused.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

config=$HL_STAGE/config/kubeadm-init.yaml
applied=/etc/kubernetes/hybrid-lab-kubeadm-init.yaml
admin=/etc/kubernetes/admin.conf
[[ -s $config ]] || hl_die "$config is missing; the harness uploads it"

api_ready() { kubectl --kubeconfig="$admin" get --raw=/readyz >/dev/null 2>&1; }

if [[ -f $admin ]]; then
  if [[ -f $applied ]] && ! cmp -s "$config" "$applied"; then
    diff -u "$applied" "$config" >&2 || true
    hl_die "this control plane was initialised with another kubeadm config (above); bring the lab down and up again to apply it" 4
  fi
  hl_ok "control plane already initialised"
else
  # --skip-token-print: kubeadm's own token never reaches any output; joins use fresh tokens.
  # HL_KUBEADM_INIT_ARGS: without CoreDNS, skip its addon and the pull of its image.
  # shellcheck disable=SC2086 # the flags are separate words
  kubeadm init --config "$config" --skip-token-print ${HL_KUBEADM_INIT_ARGS:-}
  install -m 600 "$config" "$applied"
  hl_changed "kubeadm init"
fi

for _ in $(seq 1 60); do
  if api_ready; then
    hl_ok "API server ready"
    exit 0
  fi
  sleep 2
done
hl_die "the API server did not become ready within 120 s" "$HL_EXIT_TRANSIENT"
