#!/usr/bin/env bash
# Removes everything a hybrid-lab lab owns on one libvirt URI (see hl-lab-resources.sh):
# stops and undefines its domains (snapshots and NVRAM included), deletes its volumes, stops
# and undefines its networks. Idempotent; prints "removed <kind> <name>" per resource and
# exits 1 when something could not be removed (after trying everything). HL_SWEEP_PAUSE_S
# (default 5) is the pause between sweeps while something of the lab is still there.
set -euo pipefail
# shellcheck source=hl-common.sh
. "$(dirname "$0")/hl-common.sh"

[ $# -eq 2 ] || hl_usage "URI LAB-ID|--all"
hl_init "$1" "$2"

failed=0 removed=0
# Runs a removal step; a resource that vanished meanwhile is not a failure.
remove() {
  local kind=$1 name=$2 out
  shift 2
  if out=$("$@" 2>&1); then
    printf 'removed %s %s\n' "$kind" "$name"
    removed=1
  elif [[ "$out" =~ (not\ found|failed\ to\ get\ domain|no\ domain\ with|no\ network\ with|no\ storage\ vol) ]]; then
    return 0
  else
    printf 'failed %s %s: %s\n' "$kind" "$name" "$out" >&2
    failed=1
  fi
}

# Stops a domain, retrying: one that is still starting (its client killed mid-`up`) holds its
# state lock for a while and refuses destroy. Returns at once when it is off or gone.
stop_domain() {
  local state
  for _ in $(seq 90); do
    state=$(hl_virsh domstate "$1" 2>/dev/null) || return 0
    [ "$state" = "shut off" ] && return 0
    hl_virsh destroy "$1" >/dev/null 2>&1 || sleep 1
  done
}

# One pass over everything the lab owns here: domains, then their volumes, then networks.
sweep() {
  local resources kind name pool rest snap
  resources=$(hl_lab_resources)
  while read -r kind name rest; do
    [ "$kind" = domain ] || continue
    stop_domain "$name"
    for snap in $(hl_virsh snapshot-list "$name" --name 2>/dev/null); do
      hl_virsh snapshot-delete "$name" "$snap" --metadata >/dev/null 2>&1 || true
    done
    remove domain "$name" hl_virsh undefine "$name" --managed-save --snapshots-metadata --nvram
    # Undefining a domain that came up meanwhile leaves it running as a transient one.
    stop_domain "$name"
    : "$rest"
  done <<<"$resources"
  # Volumes again: undefine does not remove the disks vagrant-libvirt created.
  while read -r kind pool name _; do
    [ "$kind" = volume ] || continue
    remove volume "$pool/$name" hl_virsh vol-delete "$name" --pool "$pool"
  done < <(hl_lab_resources)
  while read -r kind name _; do
    [ "$kind" = network ] || continue
    hl_virsh net-destroy "$name" >/dev/null 2>&1 || true
    remove network "$name" hl_virsh net-undefine "$name"
  done <<<"$resources"
}

# Requests a killed `up` left in flight (over qemu+ssh:// its tunnel outlives it) can still define
# domains after a pass: once something was removed, the lab must stay empty for a pause, else it
# is swept again; three passes at most.
for pass in 1 2 3; do
  removed=0
  sweep
  left=$(hl_lab_resources)
  if [ -z "$left" ] && [ "$removed" -eq 1 ]; then
    sleep "${HL_SWEEP_PAUSE_S:-5}"
    left=$(hl_lab_resources)
  fi
  [ -z "$left" ] && break
  [ "$pass" -lt 3 ] && sleep "${HL_SWEEP_PAUSE_S:-5}"
done
# Whatever still carries the lab's id was not removed, whatever the steps above said.
while read -r kind name _; do
  [ -n "$kind" ] || continue
  printf 'failed %s %s: still present\n' "$kind" "$name" >&2
  failed=1
done <<<"$left"
exit "$failed"
