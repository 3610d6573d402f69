#!/usr/bin/env bash
# Kernel modules and sysctls Kubernetes networking needs, persistent across reboots; no swap.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# A module counts as loaded when what it provides is there: built in, or from a container's host.
module_present() {
  case $1 in
    overlay) grep -qw overlay /proc/filesystems ;;
    br_netfilter) [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] ;;
    *) grep -q "^$1 " /proc/modules ;;
  esac
}

hl_write_file /etc/modules-load.d/hybrid-lab-kubernetes.conf 644 <<'CONF' || true
overlay
br_netfilter
CONF
for module in overlay br_netfilter; do
  if module_present "$module"; then
    hl_ok "module $module"
  else
    modprobe "$module" || hl_die "cannot load kernel module $module"
    hl_changed "module $module loaded"
  fi
done

declare -A SYSCTLS=(
  [net.bridge.bridge-nf-call-iptables]=1
  [net.bridge.bridge-nf-call-ip6tables]=1
  [net.ipv4.ip_forward]=1
)
{
  for key in $(printf '%s\n' "${!SYSCTLS[@]}" | sort); do echo "$key = ${SYSCTLS[$key]}"; done
} | hl_write_file /etc/sysctl.d/99-hybrid-lab-kubernetes.conf 644 || true
for key in $(printf '%s\n' "${!SYSCTLS[@]}" | sort); do
  if [[ $(sysctl -n "$key") == "${SYSCTLS[$key]}" ]]; then
    hl_ok "sysctl $key"
  else
    sysctl -q -w "$key=${SYSCTLS[$key]}"
    hl_changed "sysctl $key=${SYSCTLS[$key]}"
  fi
done

# kubelet refuses to start with swap on.
if [[ -n $(swapon --noheadings --show 2>/dev/null || true) ]]; then
  swapoff -a
  hl_changed "swap off"
fi
if grep -Eq '^[^#].*\sswap\s' /etc/fstab 2>/dev/null; then
  sed -i -E 's/^([^#].*\sswap\s.*)$/# \1  # disabled by hybrid-lab/' /etc/fstab
  hl_changed "swap removed from /etc/fstab"
fi
