#!/usr/bin/env bash
# Imports the node's image tarballs from the artifact cache into containerd's k8s.io namespace,
# so kubeadm and the DaemonSets never pull. Without a cache there is nothing to import.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [[ $HL_ARTIFACTS_SOURCE == none || -z $HL_IMAGE_TARBALLS ]]; then
  hl_ok "no image tarballs to import (images are pulled)"
  exit 0
fi
read -r -a tarballs <<<"$HL_IMAGE_TARBALLS"
paths=()
for rel in "${tarballs[@]}"; do paths+=("$(hl_artifact "$rel")"); done
# Image names only: containerd's CRI plugin adds sha256:<id> references of its own.
names() { ctr -n k8s.io images list -q | grep -v '^sha256:' | sort || true; }
before=$(names)
for path in "${paths[@]}"; do
  ctr -n k8s.io images import "$path" >/dev/null
done
after=$(names)
if [[ $before == "$after" ]]; then
  hl_ok "${#paths[@]} images present"
else
  while read -r ref; do hl_changed "image $ref"; done < <(comm -13 <(echo "$before") <(echo "$after"))
fi
