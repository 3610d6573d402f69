#!/usr/bin/env bash
# Runs on a Debian bookworm host with apt access (not on a node): fills CACHE/debian/bookworm/amd64
# with the Debian packages Linux nodes need, every dependency of them, and a Packages index, so
# nodes without a way out install them with apt from that folder alone.
# Usage: stage-debian-packages.sh CACHE [PACKAGE...]
set -euo pipefail

cache=${1:?usage: stage-debian-packages.sh CACHE [PACKAGE...]}
shift
packages=("$@")
[[ ${#packages[@]} -gt 0 ]] || packages=(containerd runc containernetworking-plugins conntrack socat ethtool iptables curl)
repo=$cache/debian/bookworm/amd64
mkdir -p "$repo"
cd "$repo"

mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances "${packages[@]}" | grep -E '^[a-z0-9]' | sort -u)
# Virtual packages have no file of their own; apt-get download would refuse them.
mapfile -t real < <(for p in "${closure[@]}"; do
  if apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then echo "$p"; fi
done)
apt-get download -qq "${real[@]}"
if command -v dpkg-scanpackages >/dev/null; then
  dpkg-scanpackages --multiversion . /dev/null 2>/dev/null >Packages
else
  apt-ftparchive packages . >Packages
fi
echo "staged ${#real[@]} packages in $repo"
