#!/usr/bin/env bash
# Builds the hybrid-lab Windows Server 2022 libvirt box with Packer (Debian's packer 1.6.6, qemu
# builder) from a Windows Server 2022 ISO you supply, and adds it to Vagrant. Needs a host with
# working KVM: an unaccelerated Windows install takes many hours. See README.md.
#
# Usage: build.sh ISO [SHA256]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BOX_NAME=hybrid-lab/windows-2022

die() { echo "windows box: $*" >&2; exit 1; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then die "usage: $0 ISO [SHA256]"; fi
iso=$(realpath "$1")
[ -f "$iso" ] || die "$1: no such ISO"
checksum=${2:-none}
[ "$checksum" = none ] || checksum="sha256:$checksum"
command -v packer >/dev/null || die "packer is missing (apt-get install packer)"
command -v vagrant >/dev/null || die "vagrant is missing (apt-get install vagrant vagrant-libvirt)"
[ -w /dev/kvm ] || die "/dev/kvm is not usable here; build the box on a KVM host"

pubkey=''
for key in /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub \
  /opt/vagrant/embedded/gems/gems/vagrant-*/keys/vagrant.pub; do
  [ -f "$key" ] && pubkey=$key && break
done
[ -n "$pubkey" ] || die "Vagrant's insecure public key (keys/vagrant.pub) not found"

cd "$HERE"
# devices.json: the disk bus and NIC the box is installed on, which the lab's Vagrantfile boots it on.
packer build -var-file=devices.json -var "iso_url=file://$iso" -var "iso_checksum=$checksum" -var "vagrant_pubkey=$pubkey" \
  windows-2022.json
vagrant box add --force --name "$BOX_NAME" windows-2022-libvirt.box
echo "windows box: added $BOX_NAME"
