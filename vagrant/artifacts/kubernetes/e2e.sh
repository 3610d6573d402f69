# shellcheck shell=bash
# Upstream's e2e suite from the same tree, sourced by build.sh: e2e.test and ginkgo, and the
# images the network tests of v1.20.2 run, built from Debian and the source tree under the lab's
# own names. KUBE_TEST_REPO_LIST (e2e/repo-list.yaml) maps upstream's registries to them; the
# names and tags come from the tree's test/utils/image/manifest.go, never guessed.
#
# Uses build.sh's SRC, OUT, WORK, KEEP, BIN, MIRROR, SUITE, BASE_PACKAGES, IPTABLES_BACKEND,
# apt_private, make_image, tiny_root, trim_root, phase, log, die.

E2E_TARGETS=(test/e2e/e2e.test vendor/github.com/onsi/ginkgo/ginkgo)
# Not built: test/images/regression-issue-74839 of this tree is its version 1.2, which reads its
# address from POD_IP/POD_IPS; the v1.20.2 spec runs version 1.0 and sets neither, so the server
# panics "No valid IP found" (seen on a netns kubeadm lab). The spec is left out instead.
# Every upstream registry an image below comes from is mapped here.
E2E_REGISTRY=hybrid-lab/e2e
# Upstream's agnhost image carries dig, nc, ss, curl and busybox's wget (test/images/agnhost/
# Dockerfile on alpine): the DNS specs' queriers run dig, the Service specs' exec pods nc and wget.
E2E_PACKAGES=bind9-dnsutils,netcat-openbsd,iproute2,wget
BUSYBOX_DEB=busybox-static

# Builds e2e.test and ginkgo with upstream's scripts.
e2e_build() {
  local -a env=("$@")
  phase e2e-build
  log "building ${E2E_TARGETS[*]}"
  (cd "$SRC" && "${env[@]}" hack/make-rules/build.sh "${E2E_TARGETS[@]}") >"$WORK/logs/e2e-build.log" 2>&1 ||
    { tail -30 "$WORK/logs/e2e-build.log" >&2; die "building the e2e targets failed"; }
  local t
  for t in "${E2E_TARGETS[@]}"; do
    [ -x "$BIN/${t##*/}" ] || die "the build made no ${t##*/}"
  done
}

# "registry name tag" of one entry of upstream's image manifest, e.g. `e2e_manifest Agnhost`.
e2e_manifest() {
  local entry
  entry=$(sed -n "s/^[[:space:]]*configs\[$1\] = Config{\([A-Za-z0-9]*\), \"\([^\"]*\)\", \"\([^\"]*\)\"}.*/\1 \2 \3/p" \
    "$SRC/test/utils/image/manifest.go")
  [ -n "$entry" ] || die "test/utils/image/manifest.go has no configs[$1]"
  echo "$entry"
}

# The default registry of one RegistryList field of manifest.go, e.g. promoterE2eRegistry.
e2e_default_registry() {
  local field
  field=$(tr '[:lower:]' '[:upper:]' <<<"${1:0:1}")${1:1}
  sed -n "s/^[[:space:]]*$field:[[:space:]]*\"\([^\"]*\)\",.*/\1/p" "$SRC/test/utils/image/manifest.go" | head -n1
}

# One root for agnhost, jessie-dnsutils and debian-iptables: one layer, stored once per node.
e2e_root() {
  local key tar root=$WORK/roots/e2e
  key=$(printf '%s %s %s,%s minbase' "$SUITE" "$MIRROR" "$BASE_PACKAGES" "$E2E_PACKAGES" | sha256sum | cut -c1-12)
  tar=$KEEP/debootstrap/e2e-$key.tar
  mkdir -p "$root"
  if [ -f "$tar" ]; then
    log "e2e root from cache ($tar)"
    tar -C "$root" --numeric-owner -xf "$tar"
  else
    log "debootstrap --variant=minbase --include=$BASE_PACKAGES,$E2E_PACKAGES $SUITE"
    DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$BASE_PACKAGES,$E2E_PACKAGES" \
      --cache-dir="$KEEP/debootstrap/debs" "$SUITE" "$root" "$MIRROR" >"$WORK/logs/debootstrap-e2e.log" 2>&1 ||
      { tail -20 "$WORK/logs/debootstrap-e2e.log" >&2; die "debootstrap of the e2e root failed"; }
    trim_root "$root"
    chroot "$root" update-alternatives --set iptables "/usr/sbin/iptables-$IPTABLES_BACKEND" >/dev/null
    chroot "$root" update-alternatives --set ip6tables "/usr/sbin/ip6tables-$IPTABLES_BACKEND" >/dev/null
    tar -C "$root" --numeric-owner -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
  fi
  # What upstream's agnhost Dockerfile adds besides packages: the binary, its second name, porter's
  # certificate, netexec's upload folder.
  install -m 0755 "$BIN/agnhost" "$root/agnhost"
  ln -sfn agnhost "$root/agnhost-2"
  cp "$SRC/test/images/agnhost/porter/localhost.crt" "$SRC/test/images/agnhost/porter/localhost.key" "$root/"
  mkdir -p "$root/uploads"
  local tool
  for tool in dig nc ss curl wget conntrack iptables; do
    chroot "$root" sh -c "command -v $tool" >/dev/null || die "the e2e root lacks $tool"
  done
  # shellcheck disable=SC2016 # dpkg-query's format, not shell
  E2E_ROOT_VERSIONS=$(chroot "$root" dpkg-query -W -f='${Package}=${Version} ' bind9-dnsutils netcat-openbsd iproute2 wget iptables conntrack curl)
  E2E_ROOT=$root
}

# busybox from Debian's static build, with its applets linked.
e2e_busybox_root() {
  local root=$WORK/roots/busybox deb
  (cd "$KEEP/downloads" && apt_private apt-get download "$BUSYBOX_DEB") >"$WORK/logs/busybox-download.log" 2>&1 ||
    { tail -20 "$WORK/logs/busybox-download.log" >&2; die "downloading $BUSYBOX_DEB failed"; }
  deb=$(find "$KEEP/downloads" -maxdepth 1 -name "${BUSYBOX_DEB}_*_amd64.deb" | sort -V | tail -n1)
  BUSYBOX_VERSION=$(dpkg-deb -f "$deb" Version)
  dpkg -x "$deb" "$WORK/busybox-deb"
  tiny_root "$root"
  mkdir -p "$root/bin"
  install -m 0755 "$WORK/busybox-deb/bin/busybox" "$root/bin/busybox"
  chroot "$root" /bin/busybox --install -s /bin
  BUSYBOX_ROOT=$root
}

# e2e_image KIND ROOT ENTRYPOINT CMD NOTE: one image under the lab's name for upstream's KIND.
e2e_image() {
  local kind=$1 root=$2 entrypoint=$3 cmd=$4 note=$5 registry name tag upstream ref
  read -r registry name tag <<<"$(e2e_manifest "$kind")"
  upstream="$(e2e_default_registry "$registry")/$name:$tag"
  ref=$E2E_REGISTRY/$name:$tag
  make_image "$ref" "$root" "$entrypoint" "$cmd" 0 "$note; stands in for $upstream (upstream e2e of $K8S_VERSION)"
  E2E_REGISTRIES+=("$registry")
  E2E_IMAGE_LINES+=("$ref $upstream")
}

e2e_images() {
  phase e2e-images
  E2E_REGISTRIES=() E2E_IMAGE_LINES=()
  e2e_root
  e2e_busybox_root
  local src="Debian $SUITE minbase and Kubernetes $SRC_VERSION (upstream $K8S_VERSION)"
  e2e_image Agnhost "$E2E_ROOT" '["/agnhost"]' '["pause"]' \
    "agnhost $AGNHOST_VERSION (test/images/agnhost) on $src with dig, nc, ss, curl; no CoreDNS"
  e2e_image JessieDnsutils "$E2E_ROOT" null '["sleep","infinity"]' "dig (bind9-dnsutils) on $src"
  e2e_image DebianIptables "$E2E_ROOT" null '["sleep","infinity"]' "iptables-$IPTABLES_BACKEND and conntrack on $src"
  e2e_image BusyBox "$BUSYBOX_ROOT" null '["sh"]' "busybox $BUSYBOX_VERSION from Debian $BUSYBOX_DEB"
  e2e_assemble
}

# e2e/: the binaries, the repository list, the image list and what they are, for the e2e runner.
e2e_assemble() {
  local dir=$OUT/e2e reg line first=true
  mkdir -p "$dir/linux/amd64"
  install -m 0755 "$BIN/e2e.test" "$BIN/ginkgo" "$dir/linux/amd64/"
  {
    echo "# KUBE_TEST_REPO_LIST for e2e.test $K8S_VERSION: upstream's registries of the images below -> the lab's names."
    for reg in $(printf '%s\n' "${E2E_REGISTRIES[@]}" | sort -u); do echo "$reg: $E2E_REGISTRY"; done
  } >"$dir/repo-list.yaml"
  printf '%s\n' "${E2E_IMAGE_LINES[@]}" >"$dir/images.txt"
  {
    printf '{\n  "kubernetes": "%s",\n  "e2eTest": "e2e/linux/amd64/e2e.test",\n  "ginkgo": "e2e/linux/amd64/ginkgo",\n' "$K8S_VERSION"
    printf '  "repoList": "e2e/repo-list.yaml",\n  "rootPackages": "%s",\n  "images": [' "${E2E_ROOT_VERSIONS% }"
    for line in "${E2E_IMAGE_LINES[@]}"; do
      "$first" || printf ','
      first=false
      printf '\n    {"ref": "%s", "standsInFor": "%s", "file": "images/linux/%s.tar"}' "${line% *}" "${line#* }" "$(safe_name "${line% *}")"
    done
    printf '\n  ]\n}\n'
  } >"$dir/e2e.json"
}

# e2e.test lists its specs without a cluster; ginkgo says its version.
e2e_check() {
  local dir=$OUT/e2e/linux/amd64 count
  "$dir/ginkgo" version >/dev/null 2>&1 || die "ginkgo version failed"
  count=$("$dir/e2e.test" --ginkgo.dryRun --ginkgo.noColor --ginkgo.v --ginkgo.focus='\[sig-network\]' 2>&1 |
    grep -c '^\[sig-network\]' || true)
  [ "$count" -gt 0 ] || die "e2e.test --ginkgo.dryRun lists no [sig-network] spec"
  log "e2e.test lists $count [sig-network] specs"
  file -b "$dir/e2e.test" | grep -q 'statically linked' || die "e2e.test is not statically linked"
}
