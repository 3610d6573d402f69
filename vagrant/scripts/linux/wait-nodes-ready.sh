#!/usr/bin/env bash
# Runs on the control plane last: waits until every node of the cluster is Ready.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if kubectl --kubeconfig=/etc/kubernetes/admin.conf wait --for=condition=Ready node --all --timeout=600s >/dev/null; then
  hl_ok "every node Ready"
else
  kubectl --kubeconfig=/etc/kubernetes/admin.conf get nodes -o wide >&2 || true
  hl_die "not every node became Ready within 600 s (above)" "$HL_EXIT_TRANSIENT"
fi
