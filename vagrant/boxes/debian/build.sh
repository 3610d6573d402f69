#!/usr/bin/env bash
# Builds the hybrid-lab Debian bookworm libvirt box from Debian packages (debootstrap, no
# download other than the Debian mirror) and adds it to Vagrant. Cached: rebuilt only when
# this recipe changes. Needs root; installs the Debian packages it uses when missing.
#
# Usage: build.sh [--force] [--no-add]
#   HL_BOX_CACHE      where built boxes are kept (default /var/cache/hybrid-lab/boxes)
#   HL_DEBIAN_MIRROR  Debian mirror (default: the first Debian archive of this machine's apt sources)
set -euo pipefail

BOX_NAME=hybrid-lab/debian-12
SUITE=bookworm
DISK_GB=8
PACKAGES=linux-image-amd64,grub-pc,systemd-sysv,udev,dbus,kmod,netbase,openssh-server,sudo,iproute2,iptables,nftables,conntrack,iputils-ping,procps,nodejs
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${HL_BOX_CACHE:-/var/cache/hybrid-lab/boxes}

force=false add=true
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    --no-add) add=false ;;
    *) echo "usage: $0 [--force] [--no-add]" >&2; exit 2 ;;
  esac
done

log() { printf '%s box: %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, loop devices, chroot)"
# shellcheck source=vagrant/bin/hl-apt.sh
. "$HERE/../../bin/hl-apt.sh"
# sfdisk: fdisk; losetup, partx: util-linux; mkfs.ext4: e2fsprogs; qemu-img: qemu-utils.
hl_apt_install debootstrap fdisk util-linux e2fsprogs qemu-utils tar coreutils
MIRROR=$(hl_debian_mirror) || die "no Debian mirror to build the box from"

# The recipe is this folder; its hash names the cached box and becomes the box version.
recipe_hash=$(cd "$HERE" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
version="12.0.$((16#${recipe_hash:0:7}))"
box_file="$CACHE/debian-12-$recipe_hash.box"

# Prints the Vagrant insecure public key shipped with the installed vagrant.
insecure_key() {
  local key
  for key in /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub \
    /opt/vagrant/embedded/gems/gems/vagrant-*/keys/vagrant.pub; do
    [ -f "$key" ] && { cat "$key"; return 0; }
  done
  die "Vagrant's insecure public key (keys/vagrant.pub) not found; install vagrant"
}

box_installed() {
  command -v vagrant >/dev/null && vagrant box list --machine-readable 2>/dev/null |
    awk -F, -v n="$BOX_NAME" -v v="$version" '$3=="box-name"{name=$4} $3=="box-version" && name==n && $4==v {found=1} END{exit !found}'
}

work='' loop='' root=''
cleanup() {
  local rc=$?
  if [ -n "$root" ]; then
    for m in dev/pts dev sys proc ''; do
      mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
    done
  fi
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -n "$work" ] && rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# Waits for a device node the kernel announces (no udev on the build host).
wait_for_node() {
  local node=$1 tries=100
  while [ ! -b "$node" ] && [ "$tries" -gt 0 ]; do
    partx -u "$loop" 2>/dev/null || true
    sleep 0.05
    tries=$((tries - 1))
  done
  [ -b "$node" ] || die "$node did not appear"
}

configure_guest() {
  local uuid=$1
  echo 'hybrid-lab' >"$root/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 hybrid-lab\n' >"$root/etc/hosts"
  printf 'UUID=%s / ext4 errors=remount-ro 0 1\n' "$uuid" >"$root/etc/fstab"
  : >"$root/etc/resolv.conf"
  # Clones must not share a machine-id (DHCP client ids, journal) nor ssh host keys.
  : >"$root/etc/machine-id"
  rm -f "$root/var/lib/dbus/machine-id" "$root"/etc/ssh/ssh_host_*
  mkdir -p "$root/etc/systemd/network" "$root/etc/systemd/system/ssh.service.d"
  cat >"$root/etc/systemd/network/99-hybrid-lab-mgmt.network" <<'EOF'
# The management NIC; Vagrant writes 50-vagrant-*.network for the lab NICs.
[Match]
Name=eth0
[Network]
DHCP=ipv4
[DHCPv4]
ClientIdentifier=mac
EOF
  cat >"$root/etc/systemd/system/hl-ssh-hostkeys.service" <<'EOF'
[Unit]
Description=Generate this clone's ssh host keys
Before=ssh.service
ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key
[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -q -t ed25519 -N "" -f /etc/ssh/ssh_host_ed25519_key
EOF
  printf '[Unit]\nWants=hl-ssh-hostkeys.service\nAfter=hl-ssh-hostkeys.service\n' \
    >"$root/etc/systemd/system/ssh.service.d/hostkeys.conf"
  # The harness multiplexes every command to a node over one connection.
  printf 'HostKey /etc/ssh/ssh_host_ed25519_key\nUseDNS no\nMaxSessions 100\nMaxStartups 100:30:200\n' \
    >"$root/etc/ssh/sshd_config.d/hybrid-lab.conf"
  printf 'br_netfilter\nvxlan\n' >"$root/etc/modules-load.d/hybrid-lab.conf"
  # systemd-firstboot would stop the boot at a prompt (empty machine-id = first boot); the
  # others only cost boot time under QEMU emulation.
  for unit in systemd-firstboot.service systemd-networkd-wait-online.service systemd-logind.service \
    e2scrub_reap.service e2scrub_all.timer apt-daily.timer apt-daily-upgrade.timer man-db.timer; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
  done
  mkdir -p "$root/boot/grub"
  cat >"$root/boot/grub/grub.cfg" <<EOF
set timeout=0
insmod part_msdos
insmod ext2
search --no-floppy --fs-uuid --set=root $uuid
linux /vmlinuz root=UUID=$uuid ro console=tty0 console=ttyS0,115200n8 net.ifnames=0 biosdevname=0
initrd /initrd.img
boot
EOF
  insecure_key >"$work/vagrant.pub"
  install -m 0644 "$work/vagrant.pub" "$root/tmp/vagrant.pub"
  chroot "$root" /bin/sh -es <<'EOF'
useradd --create-home --shell /bin/bash vagrant
install -d -m 0700 -o vagrant -g vagrant /home/vagrant/.ssh
install -m 0600 -o vagrant -g vagrant /tmp/vagrant.pub /home/vagrant/.ssh/authorized_keys
rm /tmp/vagrant.pub
echo 'vagrant ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/vagrant
chmod 0440 /etc/sudoers.d/vagrant
passwd -l root >/dev/null
systemctl enable systemd-networkd.service >/dev/null 2>&1
# A small initramfs boots faster under emulation: only what finds a virtio or SATA root disk.
sed -i 's/^MODULES=.*/MODULES=list/' /etc/initramfs-tools/initramfs.conf
printf '%s\n' virtio_pci virtio_blk virtio_scsi ahci sd_mod ext4 >>/etc/initramfs-tools/modules
# Drivers a VM never needs make the box twice as big.
kdir=$(ls -d /usr/lib/modules/*)
for d in drivers/gpu drivers/media drivers/net/wireless drivers/infiniband drivers/staging \
  drivers/bluetooth drivers/iio drivers/isdn drivers/thunderbolt sound net/wireless net/bluetooth; do
  rm -rf "${kdir:?}/kernel/$d"
done
depmod -a "$(basename "$kdir")"
update-initramfs -u -k all >/dev/null 2>&1
apt-get clean
rm -rf /var/lib/apt/lists/* /var/log/*.log
EOF
}

build() {
  mkdir -p "$CACHE"
  work=$(mktemp -d /var/tmp/hl-box.XXXXXX)
  root="$work/root"
  local raw="$work/disk.raw" uuid
  uuid=$(cat /proc/sys/kernel/random/uuid)
  truncate -s "${DISK_GB}G" "$raw"
  printf 'label: dos\nstart=2048, type=83, bootable\n' | sfdisk -q "$raw"
  loop=$(losetup -f --show -P "$raw")
  wait_for_node "${loop}p1"
  mkfs.ext4 -q -U "$uuid" -L hl-root "${loop}p1"
  mkdir -p "$root"
  mount "${loop}p1" "$root"
  log "debootstrap $SUITE from $MIRROR"
  DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$PACKAGES" \
    "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
  log "configuring the guest"
  configure_guest "$uuid"
  chroot "$root" grub-install --target=i386-pc --modules="part_msdos ext2" "$loop" >/dev/null 2>&1 ||
    die "grub-install on $loop failed"
  for m in dev/pts dev sys proc; do umount "$root/$m"; done
  fstrim "$root" 2>/dev/null || true
  umount "$root"
  losetup -d "$loop"
  loop=''
  log "converting to qcow2"
  local dir="$work/box"
  mkdir -p "$dir"
  qemu-img convert -O qcow2 "$raw" "$dir/box.img"
  rm -f "$raw"
  printf '{"provider":"libvirt","format":"qcow2","virtual_size":%d}\n' "$DISK_GB" >"$dir/metadata.json"
  printf '%s\n' "$recipe_hash" >"$dir/hybrid-lab-recipe"
  tar -C "$dir" -cf "$box_file.tmp" metadata.json box.img hybrid-lab-recipe
  mv "$box_file.tmp" "$box_file"
  find "$CACHE" -maxdepth 1 -name 'debian-12-*.box' ! -name "$(basename "$box_file")" -delete
  log "built $box_file ($(du -h "$box_file" | cut -f1))"
}

add_box() {
  local catalog="$CACHE/debian-12-$recipe_hash.json" old
  printf '{"name":"%s","versions":[{"version":"%s","providers":[{"name":"libvirt","url":"file://%s"}]}]}\n' \
    "$BOX_NAME" "$version" "$box_file" >"$catalog"
  vagrant box add --force "$catalog" >/dev/null
  rm -f "$catalog"
  # Older versions of the recipe go; their pool volumes are named by version, so never reused.
  for old in $(vagrant box list --machine-readable | awk -F, -v n="$BOX_NAME" \
    '$3=="box-name"{name=$4} $3=="box-version" && name==n {print $4}'); do
    [ "$old" = "$version" ] || vagrant box remove --force --box-version "$old" "$BOX_NAME" >/dev/null
  done
  log "added $BOX_NAME $version"
}

if [ "$force" = false ] && box_installed; then
  log "$BOX_NAME $version is up to date"
  exit 0
fi
if [ "$force" = true ] || [ ! -f "$box_file" ]; then
  started=$(date +%s)
  build
  log "build took $(($(date +%s) - started)) s"
fi
if [ "$add" = true ]; then
  hl_apt_install vagrant vagrant-libvirt
  add_box
fi
