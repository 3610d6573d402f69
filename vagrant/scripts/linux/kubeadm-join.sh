#!/usr/bin/env bash
# Joins this Linux worker with the token and CA hash read from standard input. The harness
# rendered the JoinConfiguration (config/kubeadm-join.yaml) with placeholders; the secrets go
# into a 0600 copy under /run that is removed on exit, never into argv.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# The kubelet's kubeconfig once its TLS bootstrap is done (tests point it elsewhere).
kubelet_conf=${HL_KUBELET_CONF:-/etc/kubernetes/kubelet.conf}
# Written while a joined node's CRI socket annotation is still to be made (see below).
pending=${kubelet_conf%/*}/hybrid-lab-cri-socket-pending
template=$HL_STAGE/config/kubeadm-join.yaml
[[ -s $template ]] || hl_die "$template is missing; the harness uploads it"

# A worker's join has one API call left after the TLS bootstrap: annotating its Node with its CRI
# socket ("uploading crisocket"), with the new kubelet.conf. kubeadm 1.20 makes that PATCH once:
# an answer slower than its 10 s client timeout (an API server under QEMU emulation) fails the
# join of a node that is already in the cluster. Here that call is made again, as kubeadm made
# it, until the API server answers; a run after one that gave up makes it again.
annotate_cri_socket() {
  local socket attempt
  socket=$(sed -n 's/^  criSocket: *//p' "$template")
  [[ -n $socket ]] || hl_die "$template has no nodeRegistration.criSocket"
  : >"$pending"
  for attempt in 1 2 3 4 5 6; do
    if kubectl --kubeconfig "$kubelet_conf" --request-timeout=30s annotate --overwrite \
      node "$HL_NODE_NAME" "kubeadm.alpha.kubernetes.io/cri-socket=$socket"; then
      rm -f "$pending"
      hl_changed "joined $HL_CONTROL_PLANE_ENDPOINT as $HL_NODE_NAME (CRI socket annotation: attempt $attempt)"
      exit 0
    fi
    sleep 10
  done
  hl_die "node $HL_NODE_NAME joined but its CRI socket annotation was refused 6 times"
}

if [[ -f $kubelet_conf ]]; then
  [[ -f $pending ]] || { hl_ok "already joined"; exit 0; }
  hl_log "node $HL_NODE_NAME joined, but an earlier run did not get its CRI socket annotation made"
  annotate_cri_socket
fi
IFS= read -r token || true
IFS= read -r ca_hash || true
[[ $token =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || hl_die "no bootstrap token on standard input"
[[ $ca_hash =~ ^sha256:[a-f0-9]{64}$ ]] || hl_die "no CA hash on standard input"

umask 077
config=$(mktemp /run/hybrid-lab-join.XXXXXX)
trap 'rm -f "$config"' EXIT
sed -e "s/@HL_JOIN_TOKEN@/$token/" -e "s/@HL_JOIN_CA_HASH@/$ca_hash/" "$template" >"$config"
grep -q '@HL_JOIN_' "$config" && hl_die "$template has a secret placeholder the script did not fill"
rm -f "$pending" # a marker of a join undone since (kubeadm reset) is not this join's
if kubeadm join --config "$config"; then
  hl_changed "joined $HL_CONTROL_PLANE_ENDPOINT as $HL_NODE_NAME"
  exit 0
fi
# kubeadm 1.20's API calls have a 10 s client timeout, and some are made once (the QEMU lab's API
# server once took longer to answer its "get Node" check). Before the TLS bootstrap the node is
# not in the cluster: the join is undone, and the harness runs this step again (its retries).
if [[ ! -f $kubelet_conf ]]; then
  kubeadm reset -f
  hl_die "kubeadm join failed before the kubelet had its certificate; undone with kubeadm reset" "$HL_EXIT_TRANSIENT"
fi
hl_log "kubeadm join failed after the TLS bootstrap; annotating node $HL_NODE_NAME with its CRI socket"
annotate_cri_socket
