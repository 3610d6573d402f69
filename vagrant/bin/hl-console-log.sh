#!/usr/bin/env bash
# Shows the serial console log of one domain (the file its <serial type='file'> writes to):
# the last LINES lines (default 50), or follows it with -f. The file is on the hypervisor host,
# so this works where that host's filesystem is visible (qemu:///system, or run it there).
set -euo pipefail
# shellcheck source=hl-common.sh
. "$(dirname "$0")/hl-common.sh"

follow=false
if [ "${1:-}" = -f ]; then follow=true; shift; fi
if [ $# -lt 2 ] || [ $# -gt 3 ]; then hl_usage "[-f] URI DOMAIN [LINES]"; fi
hl_init "$1" --all
domain=$2 lines=${3:-50}
xml=$(hl_virsh dumpxml "$domain") || { echo "no domain $domain on $HL_URI" >&2; exit 1; }
log=$(printf '%s\n' "$xml" | sed -n "/<serial type='file'>/,/<\/serial>/s/.*<source path='\([^']*\)'.*/\1/p" | head -1)
[ -n "$log" ] || { echo "$domain has no file-backed serial console" >&2; exit 1; }
[ -r "$log" ] || { echo "$log (console of $domain) is not readable here; it lives on the hypervisor host" >&2; exit 1; }
if [ "$follow" = true ]; then exec tail -n "$lines" -F "$log"; fi
tail -n "$lines" "$log"
