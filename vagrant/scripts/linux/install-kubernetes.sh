#!/usr/bin/env bash
# kubelet, kubeadm, kubectl (and crictl) at exactly the spec's Kubernetes version: from the
# artifact cache when there is one, else from the Kubernetes package repository (pkgs.k8s.io).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BIN=/usr/local/bin
# The version TOOL reports ("v1.30.4"), or nothing; each tool has its own flag and format.
installed_version() {
  local out
  case $1 in
    kubeadm) out=$(kubeadm version -o short 2>/dev/null) || true ;;
    # --client: a bare `kubectl version` asks an API server; -o short is not a kubectl format.
    kubectl) out=$(kubectl version --client -o json 2>/dev/null | sed -n 's/^ *"gitVersion": *"\([^"]*\)".*/\1/p') || true ;;
    kubelet) out=$(kubelet --version 2>/dev/null | sed -n 's/^Kubernetes \(v[^ ]*\)$/\1/p') || true ;;
    *) hl_die "installed_version: unknown tool $1" ;;
  esac
  echo "${out%%$'\n'*}"
}

from_cache() {
  local kubeadm kubelet kubectl crictl
  # Every file is looked up first, so a half-filled cache names what is missing and changes nothing.
  kubeadm=$(hl_artifact "$HL_ARTIFACT_KUBEADM")
  kubelet=$(hl_artifact "$HL_ARTIFACT_KUBELET")
  kubectl=$(hl_artifact "$HL_ARTIFACT_KUBECTL")
  crictl=$(hl_artifact "$HL_ARTIFACT_CRICTL")
  hl_install_file "$kubeadm" "$BIN/kubeadm" 755 || hl_ok "$BIN/kubeadm"
  hl_install_file "$kubelet" "$BIN/kubelet" 755 || hl_ok "$BIN/kubelet"
  hl_install_file "$kubectl" "$BIN/kubectl" 755 || hl_ok "$BIN/kubectl"
  hl_install_file "$crictl" "$BIN/crictl" 755 || hl_ok "$BIN/crictl"

  hl_write_file /etc/systemd/system/kubelet.service 644 <<'UNIT' || true
[Unit]
Description=kubelet, the Kubernetes node agent (installed by hybrid-lab)
Wants=network-online.target containerd.service
After=network-online.target containerd.service

[Service]
ExecStart=/usr/local/bin/kubelet
Restart=always
RestartSec=10
StartLimitInterval=0

[Install]
WantedBy=multi-user.target
UNIT
  # kubeadm writes kubeadm-flags.env and config.yaml; this drop-in hands them to kubelet.
  hl_write_file /etc/systemd/system/kubelet.service.d/10-kubeadm.conf 644 <<'UNIT' || true
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/local/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
UNIT
}

from_package_repo() {
  local want=${HL_K8S_VERSION#v} keyring=/etc/apt/keyrings/kubernetes-apt-keyring.gpg
  local repo="https://pkgs.k8s.io/core:/stable:/v$HL_K8S_MINOR/deb/"
  if [[ $(installed_version kubeadm) == "$HL_K8S_VERSION" && $(installed_version kubectl) == "$HL_K8S_VERSION" &&
    $(installed_version kubelet) == "$HL_K8S_VERSION" ]]; then
    hl_ok "kubeadm, kubelet, kubectl $HL_K8S_VERSION"
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get -qq update
  apt-get install -y -qq --no-install-recommends ca-certificates curl gpg
  install -d -m 755 /etc/apt/keyrings
  curl -fsSL "${repo}Release.key" | gpg --batch --yes --dearmor -o "$keyring"
  echo "deb [signed-by=$keyring] $repo /" >/etc/apt/sources.list.d/kubernetes.list
  apt-get -qq update
  apt-get install -y -qq --allow-change-held-packages \
    "kubelet=$want-*" "kubeadm=$want-*" "kubectl=$want-*"
  apt-mark hold kubelet kubeadm kubectl >/dev/null
  hl_changed "kubelet kubeadm kubectl $want from $repo"
}

case $HL_ARTIFACTS_SOURCE in
  dir | url) from_cache ;;
  *) from_package_repo ;;
esac

for tool in kubeadm kubectl kubelet; do
  got=$(installed_version "$tool")
  [[ $got == "$HL_K8S_VERSION" ]] || hl_die "$tool is $got, the lab wants $HL_K8S_VERSION"
done
# The lab-network address, not the NIC Vagrant manages, is the node's address.
hl_write_file /etc/default/kubelet 644 <<<"KUBELET_EXTRA_ARGS=--node-ip=$HL_NODE_IP" || true
if ! systemctl is-enabled --quiet kubelet 2>/dev/null; then
  systemctl enable kubelet >/dev/null 2>&1
  hl_changed "service kubelet enabled (kubeadm starts it)"
fi
if hl_systemd_running; then systemctl daemon-reload; fi
