#!/usr/bin/env bash
# Imports the node's image tarballs from the artifact cache into containerd's k8s.io namespace,
# so kubeadm and the DaemonSets never pull. Without a cache there is nothing to import. An image
# containerd already has from the very same tarball (its size and time recorded at import; the
# harness uploads a tarball only when its content changed) is not imported again: under
# software emulation one import costs tens of seconds.
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
marks=$HL_STAGE/imported
mkdir -p "$marks"
before=$(names)
# The tarball file names of the images present (a tarball is named after its reference with
# / : @ as _), each with and without docker.io's implied prefixes.
have=$(sed -E 'p; s#^docker\.io/(library/)?##' <<<"$before" | tr '/:@' '___' | sed 's/$/.tar/')
for path in "${paths[@]}"; do
  file=$(basename "$path") stamp=$(stat -c '%s %Y' "$path")
  if grep -qxF "$file" <<<"$have" && [[ $(cat "$marks/$file" 2>/dev/null) == "$stamp" ]]; then continue; fi
  ctr -n k8s.io images import "$path" >/dev/null
  echo "$stamp" >"$marks/$file"
done
after=$(names)
if [[ $before == "$after" ]]; then
  hl_ok "${#paths[@]} images present"
else
  while read -r ref; do hl_changed "image $ref"; done < <(comm -13 <(echo "$before") <(echo "$after"))
fi
