# shellcheck shell=bash
# Shared by the vagrant/bin scripts: how hybrid-lab recognises what a lab owns on a libvirt URI.
# Every lab resource is named "<lab id>_<what>" (lab ids are "hl-" + a DNS label, which has no
# "_"), and domains also carry "hybrid-lab id=<lab id>" in their description.

# Prints usage and exits 2.
hl_usage() {
  echo "usage: $(basename "$0") $*" >&2
  exit 2
}

# Sets the URI and target the functions below act on; the target is a lab id
# ("hl-<dns label>") or --all for every hybrid-lab lab.
hl_init() {
  HL_URI=$1 HL_TARGET=$2
  case "$HL_TARGET" in
    --all) return 0 ;;
    hl-*) [[ "$HL_TARGET" =~ ^hl-[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] && return 0 ;;
  esac
  echo "$(basename "$0"): '$HL_TARGET' is not a lab id (hl-<name>) nor --all" >&2
  exit 2
}

# virsh on the script's URI, quiet (no headers), never prompting.
hl_virsh() {
  virsh -q -c "$HL_URI" "$@" </dev/null
}

# The lab id a resource name carries, or nothing.
hl_lab_of_name() {
  [[ "$1" =~ ^(hl-[a-z0-9]([-a-z0-9]*[a-z0-9])?)_ ]] && printf '%s\n' "${BASH_REMATCH[1]}"
  return 0
}

# The lab id in a domain's description, or nothing.
hl_lab_of_domain() {
  local desc
  desc=$(hl_virsh desc "$1" 2>/dev/null || true)
  [[ "$desc" =~ hybrid-lab\ id=(hl-[-a-z0-9]+) ]] && printf '%s\n' "${BASH_REMATCH[1]}"
  return 0
}

# True when lab id $1 is selected by the script's target (a lab id or --all).
hl_selected() {
  [ -n "$1" ] && { [ "$HL_TARGET" = --all ] || [ "$HL_TARGET" = "$1" ]; }
}

# Every domain name (running or not).
hl_domains() {
  hl_virsh list --all --name | sed '/^$/d'
}

# Prints "domain NAME LAB", "network NAME LAB" and "volume POOL NAME LAB" for the target.
hl_lab_resources() {
  local name lab pool
  while read -r name; do
    lab=$(hl_lab_of_domain "$name")
    [ -n "$lab" ] || lab=$(hl_lab_of_name "$name")
    if hl_selected "$lab"; then printf 'domain %s %s\n' "$name" "$lab"; fi
  done < <(hl_domains)
  while read -r name; do
    lab=$(hl_lab_of_name "$name")
    if hl_selected "$lab"; then printf 'network %s %s\n' "$name" "$lab"; fi
  done < <(hl_virsh net-list --all --name | sed '/^$/d')
  while read -r pool; do
    while read -r name _; do
      lab=$(hl_lab_of_name "$name")
      if hl_selected "$lab"; then printf 'volume %s %s %s\n' "$pool" "$name" "$lab"; fi
    done < <(hl_virsh vol-list "$pool" 2>/dev/null | sed '/^$/d')
  done < <(hl_virsh pool-list --name | sed 's/ *$//;/^$/d')
}
