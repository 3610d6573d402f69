#!/usr/bin/env bash
# Joins this Linux worker with the token and CA hash read from standard input. The harness
# rendered the JoinConfiguration (config/kubeadm-join.yaml) with placeholders; the secrets go
# into a 0600 copy under /run that is removed on exit, never into argv.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [[ -f /etc/kubernetes/kubelet.conf ]]; then
  hl_ok "already joined"
  exit 0
fi
template=$HL_STAGE/config/kubeadm-join.yaml
[[ -s $template ]] || hl_die "$template is missing; the harness uploads it"
IFS= read -r token || true
IFS= read -r ca_hash || true
[[ $token =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || hl_die "no bootstrap token on standard input"
[[ $ca_hash =~ ^sha256:[a-f0-9]{64}$ ]] || hl_die "no CA hash on standard input"

umask 077
config=$(mktemp /run/hybrid-lab-join.XXXXXX)
trap 'rm -f "$config"' EXIT
sed -e "s/@HL_JOIN_TOKEN@/$token/" -e "s/@HL_JOIN_CA_HASH@/$ca_hash/" "$template" >"$config"
grep -q '@HL_JOIN_' "$config" && hl_die "$template has a secret placeholder the script did not fill"
kubeadm join --config "$config"
hl_changed "joined $HL_CONTROL_PLANE_ENDPOINT as $HL_NODE_NAME"
