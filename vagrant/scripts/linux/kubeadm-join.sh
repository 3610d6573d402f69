#!/usr/bin/env bash
# Joins this Linux worker with the token and CA hash read from standard input. The secrets go
# into a 0600 JoinConfiguration under /run that is removed on exit, never into argv.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [[ -f /etc/kubernetes/kubelet.conf ]]; then
  hl_ok "already joined"
  exit 0
fi
IFS= read -r token || true
IFS= read -r ca_hash || true
[[ $token =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || hl_die "no bootstrap token on standard input"
[[ $ca_hash =~ ^sha256:[a-f0-9]{64}$ ]] || hl_die "no CA hash on standard input"

umask 077
config=$(mktemp /run/hybrid-lab-join.XXXXXX)
trap 'rm -f "$config"' EXIT
cat >"$config" <<YAML
apiVersion: $HL_KUBEADM_API
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$HL_CONTROL_PLANE_ENDPOINT"
    token: "$token"
    caCertHashes: ["$ca_hash"]
nodeRegistration:
  name: "$HL_NODE_NAME"
  criSocket: "$HL_CRI_SOCKET"
YAML
kubeadm join --config "$config"
hl_changed "joined $HL_CONTROL_PLANE_ENDPOINT as $HL_NODE_NAME"
