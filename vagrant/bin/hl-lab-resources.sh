#!/usr/bin/env bash
# Lists what a hybrid-lab lab owns on one libvirt URI, one resource a line:
#   domain NAME LAB | network NAME LAB | volume POOL NAME LAB
# Domains are found by the "hybrid-lab id=LAB" in their description or the "LAB_" name prefix;
# networks and volumes by the name prefix. --all lists every hybrid-lab lab's.
set -euo pipefail
# shellcheck source=hl-common.sh
. "$(dirname "$0")/hl-common.sh"

[ $# -eq 2 ] || hl_usage "URI LAB-ID|--all"
hl_init "$1" "$2"
hl_lab_resources
