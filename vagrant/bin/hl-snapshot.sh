#!/usr/bin/env bash
# Snapshots of a whole lab on one URI: every domain of the lab at once.
#   save NAME    internal snapshot NAME of each domain (memory included when running)
#   revert NAME  back to NAME on each domain
#   delete NAME  removes NAME from each domain
#   list         snapshot names per domain
set -euo pipefail
# shellcheck source=hl-common.sh
. "$(dirname "$0")/hl-common.sh"

[ $# -ge 3 ] || hl_usage "URI LAB-ID save|revert|delete NAME | URI LAB-ID list"
hl_init "$1" "$2"
action=$3 snap=${4:-}
[ "$HL_TARGET" != --all ] || { echo "snapshots act on one lab, not --all" >&2; exit 2; }
case "$action" in
  save | revert | delete) [[ "$snap" =~ ^[A-Za-z0-9._-]+$ ]] || hl_usage "URI LAB-ID $action NAME ([A-Za-z0-9._-]+)" ;;
  list) ;;
  *) hl_usage "URI LAB-ID save|revert|delete|list [NAME]" ;;
esac

domains=$(hl_lab_resources | awk '$1 == "domain" {print $2}')
[ -n "$domains" ] || { echo "lab $HL_TARGET has no domains on $HL_URI" >&2; exit 1; }
for domain in $domains; do
  case "$action" in
    save) hl_virsh snapshot-create-as "$domain" "$snap" --description "hybrid-lab $HL_TARGET" >/dev/null ;;
    revert) hl_virsh snapshot-revert "$domain" "$snap" ;;
    delete) hl_virsh snapshot-delete "$domain" "$snap" >/dev/null ;;
    list) hl_virsh snapshot-list "$domain" --name | sed "/^$/d;s/^/$domain /" ;;
  esac
  [ "$action" = list ] || printf '%s %s %s\n' "$action" "$domain" "$snap"
done
