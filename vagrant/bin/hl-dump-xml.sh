#!/usr/bin/env bash
# Writes the libvirt XML of a lab's domains and networks on one URI into DIR
# (domain-NAME.xml, network-NAME.xml), e.g. for CI artifacts. Prints the files written.
set -euo pipefail
# shellcheck source=hl-common.sh
. "$(dirname "$0")/hl-common.sh"

[ $# -eq 3 ] || hl_usage "URI LAB-ID DIR"
hl_init "$1" "$2"
dir=$3
mkdir -p "$dir"
while read -r kind name _; do
  case "$kind" in
    domain) hl_virsh dumpxml "$name" >"$dir/domain-$name.xml" ;;
    network) hl_virsh net-dumpxml "$name" >"$dir/network-$name.xml" ;;
    *) continue ;;
  esac
  printf '%s\n' "$dir/$kind-$name.xml"
done < <(hl_lab_resources)
