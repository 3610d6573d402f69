#!/bin/sh
# Runs once inside a namespace node's new mount and UTS namespaces (unshare from
# kubeadm-nodes.ts) and gives the node its own view of the machine; the mounts stay with the
# namespace after this script exits (its pin keeps it alive) and never propagate to the host.
#
#   HL_NODE        the node's name (its hostname)
#   HL_NODE_STATE  the node's folder on the host: dirs/<path> for every HL_NODE_DIRS entry,
#                  hosts, resolv.conf, sysctl/<key with dots>
#   HL_NODE_DIRS   paths (one per line) that get the node's own directory
#   HL_BIN_DIR     kubeadm, kubelet, kubectl, crictl of the artifact cache: read-only on /usr/local/bin
#   HL_SYSCTLS     /proc/sys keys (one per line) that get the node's private file
#   HL_HOST_PATHS  other host folders (one per line) the node's processes read: the harness's scripts
set -eu

hostname "$HL_NODE"

# Host paths the node reads, resolved: the mounts holding them stay (a /var, /home or artifact
# cache on a file system of its own).
needed=$(printf '%s\n%s\n%s\n' "$HL_NODE_STATE" "$HL_BIN_DIR" "${HL_HOST_PATHS:-}" |
  while read -r path; do [ -z "$path" ] || readlink -f "$path" || echo "$path"; done)

# Copies of the host's other mounts (another node's pins, a CI run's loop devices, /run/netns)
# would stay referenced as long as this node lives: keep only what a machine needs.
awk '{print $5}' /proc/self/mountinfo |
  grep -Ev '^(/|/proc|/sys|/dev|/dev/pts|/dev/shm|/dev/mqueue|/sys/fs/cgroup(/.*)?)$' |
  sort -r | while read -r point; do
    echo "$needed" | awk -v m="$point" '$0 == m || index($0, m "/") == 1 {f = 1} END {exit !f}' ||
      umount -l "$point" 2>/dev/null || true
  done

# A /run of its own, as a booted machine has: containerd's socket and state, the pods' network
# namespaces, the xtables lock.
mount -t tmpfs -o mode=0755,size=256m "hl-run-$HL_NODE" /run
mkdir -p /run/netns /run/lock /run/containerd

echo "$HL_NODE_DIRS" | while read -r dir; do
  [ -n "$dir" ] || continue
  mkdir -p "$HL_NODE_STATE/dirs$dir"
  mount --bind "$HL_NODE_STATE/dirs$dir" "$dir"
done

# Its own name resolution: every node by name (kubeadm looks its own up), and no resolver, so
# a lookup of anything else fails at once instead of leaving for the host's.
mount --bind "$HL_NODE_STATE/hosts" /etc/hosts
mount --bind "$HL_NODE_STATE/resolv.conf" /etc/resolv.conf

mount --bind "$HL_BIN_DIR" /usr/local/bin
mount -o remount,bind,ro /usr/local/bin

echo "$HL_SYSCTLS" | while read -r key; do
  [ -n "$key" ] || continue
  mount --bind "$HL_NODE_STATE/sysctl/$(echo "$key" | tr / .)" "/proc/sys/$key"
done

# Shared propagation inside the node, as systemd sets up a machine (the kubelet's volume
# mounts need it); new peer groups, none shared with the host.
mount --make-rshared /
