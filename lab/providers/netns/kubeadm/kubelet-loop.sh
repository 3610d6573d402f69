#!/bin/bash
# The kubelet's supervisor on a namespace node: what systemd's kubelet.service with kubeadm's
# 10-kubeadm.conf drop-in does on a real machine. Runs under `tini -s` in the node's namespaces.
# - Waits until kubeadm has written both /var/lib/kubelet/config.yaml and kubeadm-flags.env
#   (join writes config.yaml first, init the flags first: the kubelet needs both).
# - Starts the kubelet with the drop-in's flags plus $KUBELET_KUBEADM_ARGS (kubeadm writes the
#   node's own flags there: its address, its cgroup root).
# - Restarts it when it exits, and when kubeadm rewrites one of its files: kubeadm asks systemd
#   for those restarts, which fails here with a warning (init's kubelet-finalize rewrites
#   kubelet.conf). kubelet.conf is watched only when it existed at start (on join the kubelet
#   writes it itself).
set -uo pipefail
files=(/var/lib/kubelet/config.yaml /var/lib/kubelet/kubeadm-flags.env)
child=''
stop() {
  [[ -n $child ]] && kill "$child" 2>/dev/null
  wait
  exit 0
}
trap stop TERM INT
stamp() { stat -c '%n %Y %s' "${watched[@]}" 2>/dev/null; }
say() { echo "$(date +%T) kubelet-loop: $*"; }

while :; do
  if [[ -f ${files[0]} && -f ${files[1]} ]]; then
    sleep 0.5 # let kubeadm finish writing
    KUBELET_KUBEADM_ARGS=''
    # shellcheck source=/dev/null
    . /var/lib/kubelet/kubeadm-flags.env
    watched=("${files[@]}")
    [[ -f /etc/kubernetes/kubelet.conf ]] && watched+=(/etc/kubernetes/kubelet.conf)
    started=$(stamp)
    say "starting kubelet $KUBELET_KUBEADM_ARGS"
    # shellcheck disable=SC2086 # word splitting of the flags, as systemd does
    /usr/local/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \
      --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml \
      $KUBELET_KUBEADM_ARGS &
    child=$!
    while kill -0 "$child" 2>/dev/null; do
      sleep 1
      if [[ $(stamp) != "$started" ]]; then
        say "kubeadm changed the kubelet's files: restarting it"
        kill "$child" 2>/dev/null
        break
      fi
    done
    wait "$child"
    say "kubelet exited with $?"
    child=''
  fi
  sleep 1
done
