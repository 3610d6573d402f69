#!/usr/bin/env bash
# Builds the Kubernetes v1.20.2 artifact cache from Debian alone: the server and node binaries
# from Debian bookworm's `kubernetes` source package (the full upstream v1.20.2 tree with
# vendor/), our minimal crictl and cluster DNS stand-in, the container images kubeadm wants as
# docker-archive tarballs, and the Debian packages VM nodes install offline (containerd, runc,
# CNI plugins: vagrant/scripts/linux/stage-debian-packages.sh). Cached by the hash of this
# folder and that script: a cache hit returns at once; a build goes to a work folder and is
# renamed into place only when complete.
#
# Usage: build.sh [--force] [--cold] | --recipe-hash
#   --force        rebuild even when the cache holds this recipe's tree
#   --cold         ignore (and refill) the Go build cache, downloads and the debootstrap cache
#   --recipe-hash  print the recipe's hash (the cache folder's name) and exit
#   HL_K8S_CACHE      where trees are kept (default /var/cache/hybrid-lab/kubernetes);
#                     each build is HL_K8S_CACHE/<recipe hash>/
#   HL_DEBIAN_MIRROR  Debian mirror (default: the first Debian archive of this machine's apt sources)
# The last line on stdout is the finished tree's path; the log goes to stderr. The link
# HL_K8S_CACHE/v1.20.2 points at it, so a lab spec can name `artifacts: { dir: … }` once.
set -euo pipefail

K8S_VERSION=v1.20.2
SUITE=bookworm
GO_BIN=/usr/lib/go-1.19/bin
# The one fix: vendored reflect2 v1.0.1 crashes under Go >= 1.18; Debian ships v1.0.2.
REFLECT2_DEB=/usr/share/gocode/src/github.com/modern-go/reflect2
# rsync: Kubernetes' hack/ scripts copy generated files with it (make generated_files fails without).
BUILD_PACKAGES=(golang-1.19-go golang-github-modern-go-reflect2-dev dpkg-dev debootstrap gcc libc6-dev make file rsync)
# What every debootstrap-based image needs: kube-proxy iptables and conntrack, agnhost curl and
# ping (the suite's ICMP cells) and iperf3 (the perf mode's streams: docs/performance.md).
BASE_PACKAGES=iptables,conntrack,curl,iputils-ping,iperf3
# kube-proxy's iptables backend: bookworm's default (iptables-nft), what Debian nodes use.
IPTABLES_BACKEND=nft
CRICTL_VERSION=0.1.0
CLUSTER_DNS_VERSION=0.2.0
KUBE_TARGETS=(cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubelet cmd/kube-proxy
  cmd/kubeadm cmd/kubectl test/images/agnhost hybrid-lab/crictl hybrid-lab/hl-cluster-dns)

HERE=$(cd "$(dirname "$0")" && pwd)
STAGE_DEBS=$HERE/../../scripts/linux/stage-debian-packages.sh
# shellcheck source-path=SCRIPTDIR source=e2e.sh
. "$HERE/e2e.sh"
CACHE=${HL_K8S_CACHE:-/var/cache/hybrid-lab/kubernetes}

force=false cold=false print_hash=false
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    --cold) cold=true ;;
    --recipe-hash) print_hash=true ;;
    *) echo "usage: $0 [--force] [--cold] | --recipe-hash" >&2; exit 2 ;;
  esac
done

log() { printf '%s k8s-artifacts: %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source-path=SCRIPTDIR source=../../bin/hl-apt.sh
. "$HERE/../../bin/hl-apt.sh"

recipe_hash=$( (cd "$HERE" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | cat - <(sha256sum <"$STAGE_DEBS") |
  sha256sum | cut -c1-12)
if [ "$print_hash" = true ]; then
  echo "$recipe_hash"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "run as root (apt-get, debootstrap, chroot)"
MIRROR=$(hl_debian_mirror) || die "no Debian mirror to build from"

dest=$CACHE/$recipe_hash
# Prints the tree and points the version link at it (atomically: a new link, then a rename).
finished() {
  # A hit on a read-only cache (the clean-Debian check mounts it so) writes nothing.
  if [ "$(readlink "$CACHE/$K8S_VERSION" || true)" != "$recipe_hash" ]; then
    ln -sfn "$recipe_hash" "$CACHE/$K8S_VERSION.tmp" && mv -T "$CACHE/$K8S_VERSION.tmp" "$CACHE/$K8S_VERSION"
  fi
  echo "$dest"
}
if [ "$force" = false ] && [ -f "$dest/recipe.json" ]; then
  log "cache hit: $dest"
  finished
  exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "another build holds $CACHE/.lock; waiting"
  flock 9
  if [ "$force" = false ] && [ -f "$dest/recipe.json" ]; then
    log "cache hit: $dest"
    finished
    exit 0
  fi
fi

# Kept between builds: apt lists and downloads, Go's build cache, debootstrap roots. The work
# folder has a fixed path so Go's cache keys (which include -trimpath=KUBE_ROOT) stay valid.
KEEP=$CACHE/.keep
WORK=$CACHE/.build
SRC=$WORK/src/kubernetes
OUT=$WORK/out
if [ "$cold" = true ]; then
  log "--cold: dropping $KEEP"
  rm -rf "$KEEP"
fi
mkdir -p "$KEEP"

# Unmounts whatever is mounted below the work folder (debootstrap's proc and sys in the root
# when it died half-way), then removes the folder without ever crossing into a mount.
remove_work() {
  local m
  awk -v w="$WORK/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$WORK"
}

deb_pid=''
cleanup() {
  local rc=$?
  if [ -n "$deb_pid" ]; then kill "$deb_pid" 2>/dev/null || true; wait "$deb_pid" 2>/dev/null || true; fi
  if [ -d "$WORK" ]; then
    if [ "$rc" -ne 0 ]; then log "failed; the log of each phase is in $WORK/logs"; else remove_work; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
# Killed: exit non-zero, so cleanup keeps the logs (bash would run the EXIT trap with $? = 0).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

declare -a TIMINGS=()
phase_started=0 phase_name=''
phase() {
  phase_end
  phase_name=$1
  phase_started=$(date +%s)
  log "phase $phase_name"
}
phase_end() {
  if [ -n "$phase_name" ]; then
    local took=$(($(date +%s) - phase_started))
    TIMINGS+=("$phase_name=$took")
    log "phase $phase_name took ${took}s"
    phase_name=''
  fi
}

# --- private apt: own sources list, lists and archives; /etc/apt stays untouched. Its dpkg status
# is empty: what this host has installed (a newer libssl3 from bookworm-security, say) must not
# pick the versions staged for the nodes, which must come from the recipe's own sources.
APT_DIR=$KEEP/apt
# apt_private apt-get|apt-cache ARGS...
apt_private() {
  local tool=$1
  shift
  "$tool" -q -o Dir::Etc::sourcelist="$APT_DIR/sources.list" -o Dir::Etc::sourceparts=- \
    -o Dir::State::Lists="$APT_DIR/lists" -o Dir::State::status="$APT_DIR/status" \
    -o Dir::Cache="$APT_DIR/cache" -o APT::Sandbox::User=root "$@"
}

# The Debian packages VM nodes install with no way out, with a Packages index, into the tree.
# The staging script runs apt-get and apt-cache: APT_CONFIG hands them the private configuration.
stage_debs() {
  local conf=$WORK/apt-private.conf
  printf 'Dir::Etc::sourcelist "%s";\nDir::Etc::sourceparts "-";\nDir::State::Lists "%s";\nDir::State::status "%s";\nDir::Cache "%s";\nAPT::Sandbox::User "root";\n' \
    "$APT_DIR/sources.list" "$APT_DIR/lists" "$APT_DIR/status" "$APT_DIR/cache" >"$conf"
  APT_CONFIG=$conf bash "$STAGE_DEBS" "$OUT" >"$WORK/logs/stage-debs.log" 2>&1 ||
    { tail -20 "$WORK/logs/stage-debs.log" >&2; die "staging the nodes' Debian packages failed"; }
}

install_build_packages() {
  local missing=() pkg
  for pkg in "${BUILD_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    # The machine's own apt configuration; its package lists are refreshed only when needed.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >"$WORK/logs/apt-install.log" 2>&1; then
      log "apt-get install failed; apt-get update and again"
      { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
        >>"$WORK/logs/apt-install.log" 2>&1 ||
        { tail -20 "$WORK/logs/apt-install.log" >&2; die "apt-get install ${missing[*]} failed"; }
    fi
  fi
  [ -x "$GO_BIN/go" ] || die "$GO_BIN/go is missing (golang-1.19-go)"
  [ -f "$REFLECT2_DEB/reflect2.go" ] || die "$REFLECT2_DEB is missing (golang-github-modern-go-reflect2-dev)"
}

fetch_sources() {
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$KEEP/downloads"
  : >"$APT_DIR/status"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\ndeb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" >"$APT_DIR/sources.list"
  apt_private apt-get update >"$WORK/logs/apt-update.log" 2>&1 ||
    { tail -20 "$WORK/logs/apt-update.log" >&2; die "apt-get update (private, $MIRROR $SUITE) failed"; }
  SRC_VERSION=$(apt_private apt-cache showsrc kubernetes 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
  case "$SRC_VERSION" in
    *really1.20.2* | 1.20.2*) ;;
    *) die "Debian $SUITE's kubernetes source is '$SRC_VERSION', this recipe builds 1.20.2" ;;
  esac
  ETCD_VERSION=$(apt_private apt-cache show etcd-server 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)
  case "$ETCD_VERSION" in 3.4.*) ;; *) die "Debian $SUITE's etcd-server is '$ETCD_VERSION', this recipe wants 3.4" ;; esac
  log "kubernetes source $SRC_VERSION, etcd-server $ETCD_VERSION from $MIRROR"
  (cd "$KEEP/downloads" &&
    apt_private apt-get source --download-only "kubernetes=$SRC_VERSION" &&
    apt_private apt-get download "etcd-server=$ETCD_VERSION" "etcd-client=$ETCD_VERSION") >"$WORK/logs/apt-download.log" 2>&1 ||
    { tail -20 "$WORK/logs/apt-download.log" >&2; die "downloading kubernetes $SRC_VERSION / etcd $ETCD_VERSION failed"; }
}

unpack_sources() {
  local dsc upstream_version
  dsc=$KEEP/downloads/kubernetes_${SRC_VERSION#*:}.dsc
  mkdir -p "$WORK/src"
  # Applies Debian's patches (kubectl only: CVE-2021-25743 and table printing).
  dpkg-source -x "$dsc" "$SRC" >"$WORK/logs/dpkg-source.log" 2>&1 ||
    { tail -20 "$WORK/logs/dpkg-source.log" >&2; die "dpkg-source -x $dsc failed"; }
  grep -q "tag: $K8S_VERSION\\b" "$SRC/hack/lib/version.sh" ||
    die "the source's hack/lib/version.sh names no tag $K8S_VERSION"
  upstream_version=$(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev)
  log "applying fix: vendor/github.com/modern-go/reflect2 v1.0.1 -> v1.0.2 from Debian golang-github-modern-go-reflect2-dev $upstream_version (v1.0.1 uses the pre-Go-1.18 reflect.mapiterinit signature: json-iterator map encoding dies with SIGSEGV under Go 1.19)"
  rm -rf "$SRC/vendor/github.com/modern-go/reflect2"
  mkdir -p "$SRC/vendor/github.com/modern-go/reflect2"
  find "$REFLECT2_DEB" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) ! -name '*_test.go' \
    -exec cp {} "$SRC/vendor/github.com/modern-go/reflect2/" \;
  FIX_NOTE="vendor/github.com/modern-go/reflect2 replaced by v1.0.2 from Debian golang-github-modern-go-reflect2-dev $upstream_version"
  mkdir -p "$SRC/hybrid-lab/crictl" "$SRC/hybrid-lab/hl-cluster-dns"
  cp "$HERE/crictl/main.go" "$SRC/hybrid-lab/crictl/main.go"
  cp "$HERE/cluster-dns/main.go" "$SRC/hybrid-lab/hl-cluster-dns/main.go"
  SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -STimestamp)
}

# --- debootstrap: one minbase root for every image that needs more than a static binary
DEB_KEY=$(printf '%s %s %s minbase' "$SUITE" "$MIRROR" "$BASE_PACKAGES" | sha256sum | cut -c1-12)
BASE_TAR=$KEEP/debootstrap/base-$DEB_KEY.tar
start_debootstrap() {
  mkdir -p "$KEEP/debootstrap/debs" "$WORK/base"
  if [ -f "$BASE_TAR" ]; then
    log "debootstrap root from cache ($BASE_TAR)"
    return 0
  fi
  log "debootstrap --variant=minbase --include=$BASE_PACKAGES $SUITE from $MIRROR (in the background)"
  DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$BASE_PACKAGES" \
    --cache-dir="$KEEP/debootstrap/debs" "$SUITE" "$WORK/base" "$MIRROR" >"$WORK/logs/debootstrap.log" 2>&1 &
  deb_pid=$!
}

finish_debootstrap() {
  if [ -n "$deb_pid" ]; then
    local pid=$deb_pid
    deb_pid=''
    wait "$pid" || { tail -20 "$WORK/logs/debootstrap.log" >&2; die "debootstrap failed"; }
    trim_root "$WORK/base"
    chroot "$WORK/base" update-alternatives --set iptables "/usr/sbin/iptables-$IPTABLES_BACKEND" >/dev/null
    chroot "$WORK/base" update-alternatives --set ip6tables "/usr/sbin/ip6tables-$IPTABLES_BACKEND" >/dev/null
    tar -C "$WORK/base" --numeric-owner -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR"
  else
    tar -C "$WORK/base" --numeric-owner -xf "$BASE_TAR"
  fi
  # shellcheck disable=SC2016 # dpkg-query's format, not shell
  BASE_VERSIONS=$(chroot "$WORK/base" dpkg-query -W -f='${Package}=${Version} ' iptables conntrack curl iputils-ping iperf3 libc6)
  log "base root: ${BASE_VERSIONS% }, iptables backend $IPTABLES_BACKEND ($(du -sh "$WORK/base" | cut -f1))"
}

# Drops what no container needs from a debootstrap root.
trim_root() {
  local root=$1
  rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
    "$root"/usr/share/locale/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
    "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/debconf/*-old "$root"/var/lib/dpkg/*-old
  find "$root/var/log" -type f -delete
  : >"$root/etc/resolv.conf"
  echo localhost >"$root/etc/hostname"
}

# A tiny root for static binaries: users, name service switch, /tmp.
tiny_root() {
  local root=$1
  mkdir -p "$root"/{etc,tmp,usr/local/bin,var/run,root}
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  : >"$root/etc/hosts"
  : >"$root/etc/resolv.conf"
}

# --- the Go build with upstream's own scripts, GOPATH mode
go_build() {
  mkdir -p "$KEEP/gocache" "$SRC/_output/local/go"
  ln -sfn "$KEEP/gocache" "$SRC/_output/local/go/cache"
  local -a env=(env "PATH=$GO_BIN:$PATH" GOPROXY=off GOFLAGS=-buildvcs=false CGO_ENABLED=0
    GO111MODULE=off KUBE_BUILD_PLATFORMS=linux/amd64 "KUBE_STATIC_OVERRIDES=${KUBE_TARGETS[*]##*/}"
    "HOME=$WORK/home" "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH")
  mkdir -p "$WORK/home"
  GO_VERSION=$("$GO_BIN/go" version | awk '{print $3}')
  phase generated-files
  (cd "$SRC" && "${env[@]}" make generated_files) >"$WORK/logs/generated-files.log" 2>&1 ||
    { tail -30 "$WORK/logs/generated-files.log" >&2; die "make generated_files failed"; }
  phase go-build
  log "building ${KUBE_TARGETS[*]} with $GO_VERSION"
  (cd "$SRC" && "${env[@]}" hack/make-rules/build.sh "${KUBE_TARGETS[@]}") >"$WORK/logs/go-build.log" 2>&1 ||
    { tail -30 "$WORK/logs/go-build.log" >&2; die "hack/make-rules/build.sh failed"; }
  BIN=$SRC/_output/local/bin/linux/amd64
  local t
  for t in "${KUBE_TARGETS[@]}"; do
    [ -x "$BIN/${t##*/}" ] || die "the build made no ${t##*/}"
  done
  e2e_build "${env[@]}"
}

build_pause() {
  local tag
  tag=$(sed -n 's/^TAG = //p' "$SRC/build/pause/Makefile")
  gcc -Os -Wall -Werror -static -DVERSION="v$tag-hybrid-lab" -o "$WORK/pause" "$SRC/build/pause/linux/pause.c"
  strip "$WORK/pause"
}

# --- docker-archive images: one layer, manifest.json + config, what `ctr images import` takes
safe_name() { printf '%s' "$1" | tr '/:@' '___'; }
iso_date() { date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ; }
det_tar() {
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime "$@"
}

# make_image REF ROOT ENTRYPOINT_JSON CMD_JSON USER DESCRIPTION
make_image() {
  local ref=$1 root=$2 entrypoint=$3 cmd=$4 user=$5 description=$6
  local dir diff config config_sha created file
  dir=$WORK/img/$(safe_name "$ref")
  rm -rf "$dir"
  mkdir -p "$dir"
  det_tar -C "$root" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' --exclude='./run/*' \
    --exclude='./tmp/*' -cf "$dir/layer.tar" .
  diff=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
  mkdir "$dir/$diff"
  mv "$dir/layer.tar" "$dir/$diff/layer.tar"
  created=$(iso_date)
  config=$(printf '{"architecture":"amd64","os":"linux","created":"%s","config":{"User":"%s","Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"Cmd":%s,"WorkingDir":"/","Labels":{"org.opencontainers.image.description":"%s","io.hybrid-lab.recipe":"%s"}},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"%s","created_by":"hybrid-lab vagrant/artifacts/kubernetes/build.sh","comment":"%s"}]}' \
    "$created" "$user" "$entrypoint" "$cmd" "$description" "$recipe_hash" "$diff" "$created" "$description")
  config_sha=$(printf '%s' "$config" | sha256sum | cut -d' ' -f1)
  printf '%s' "$config" >"$dir/$config_sha.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$config_sha" "$ref" "$diff" >"$dir/manifest.json"
  file=$OUT/images/linux/$(safe_name "$ref").tar
  det_tar -C "$dir" --owner=0 --group=0 -cf "$file" manifest.json "$config_sha.json" "$diff"
  rm -rf "$dir"
  IMAGE_LINES+=("$ref $(basename "$file")")
  log "image $ref ($(du -h "$file" | cut -f1))"
}

# Copies a dynamically linked binary's libraries (as the base root resolves them) into ROOT.
copy_libs() {
  local root=$1 bin=$2 lib real
  for lib in $(chroot "$WORK/base" ldd "$bin" | grep -oE '/[^ ]+\.so[^ ]*'); do
    real=$(chroot "$WORK/base" readlink -f "$lib")
    mkdir -p "$root$(dirname "$lib")"
    cp "$WORK/base$real" "$root$lib"
  done
}

build_images() {
  local r src="Debian kubernetes $SRC_VERSION (upstream $K8S_VERSION)"
  mkdir -p "$OUT/images/linux" "$WORK/roots"
  IMAGE_LINES=()
  local pause_ref='' etcd_ref='' proxy_ref='' ref name
  while read -r ref; do
    name=${ref##*/}
    name=${name%%:*}
    case "$name" in
      pause) pause_ref=$ref ;;
      etcd) etcd_ref=$ref ;;
      kube-proxy) proxy_ref=$ref ;;
      kube-apiserver | kube-controller-manager | kube-scheduler)
        r=$WORK/roots/$name
        tiny_root "$r"
        install -m 0755 "$BIN/$name" "$r/usr/local/bin/$name"
        make_image "$ref" "$r" "[\"/usr/local/bin/$name\"]" null 0 "$name $K8S_VERSION built by hybrid-lab from $src"
        ;;
      coredns) log "not building $ref: CoreDNS cannot be built from Debian; hl-cluster-dns stands in under its own name" ;;
      *) die "kubeadm lists an image this recipe does not know: $ref" ;;
    esac
  done <"$OUT/kubernetes/$K8S_VERSION/images.txt"
  if [ -z "$pause_ref" ] || [ -z "$etcd_ref" ] || [ -z "$proxy_ref" ]; then
    die "images.txt lacks pause, etcd or kube-proxy"
  fi

  r=$WORK/roots/pause
  mkdir -p "$r"
  install -m 0755 "$WORK/pause" "$r/pause"
  make_image "$pause_ref" "$r" '["/pause"]' null 65535:65535 "pause (static gcc build of build/pause/linux/pause.c) by hybrid-lab from $src"

  # kubeadm's etcd pod runs `etcd --data-dir=/var/lib/etcd ...` from PATH; Debian's binaries
  # are dynamically linked, so they get their libraries from the base root.
  r=$WORK/roots/etcd
  tiny_root "$r"
  mkdir -p "$r/var/lib/etcd"
  dpkg -x "$KEEP/downloads/etcd-server_${ETCD_VERSION#*:}_amd64.deb" "$WORK/etcd-deb"
  dpkg -x "$KEEP/downloads/etcd-client_${ETCD_VERSION#*:}_amd64.deb" "$WORK/etcd-deb"
  install -m 0755 "$WORK/etcd-deb/usr/bin/etcd" "$r/usr/local/bin/etcd"
  install -m 0755 "$WORK/etcd-deb/usr/bin/etcdctl" "$r/usr/local/bin/etcdctl"
  install -m 0755 "$WORK/etcd-deb/usr/bin/etcd" "$WORK/base/tmp/etcd"
  install -m 0755 "$WORK/etcd-deb/usr/bin/etcdctl" "$WORK/base/tmp/etcdctl"
  copy_libs "$r" /tmp/etcd
  copy_libs "$r" /tmp/etcdctl
  rm -f "$WORK/base/tmp/etcd" "$WORK/base/tmp/etcdctl"
  chroot "$r" /usr/local/bin/etcd --version >"$WORK/logs/etcd-version.log" 2>&1 ||
    { cat "$WORK/logs/etcd-version.log" >&2; die "etcd does not run in its image root"; }
  make_image "$etcd_ref" "$r" '["/usr/local/bin/etcd"]' null 0 "etcd $ETCD_VERSION from Debian etcd-server/etcd-client under the tag kubeadm $K8S_VERSION expects (not upstream's etcd build)"

  r=$WORK/roots/kube-proxy
  cp -a "$WORK/base" "$r"
  install -m 0755 "$BIN/kube-proxy" "$r/usr/local/bin/kube-proxy"
  make_image "$proxy_ref" "$r" '["/usr/local/bin/kube-proxy"]' null 0 "kube-proxy $K8S_VERSION built by hybrid-lab from $src on Debian $SUITE minbase (iptables-$IPTABLES_BACKEND, conntrack)"

  r=$WORK/roots/agnhost
  cp -a "$WORK/base" "$r"
  install -m 0755 "$BIN/agnhost" "$r/agnhost"
  make_image "$AGNHOST_IMAGE" "$r" '["/agnhost"]' '["pause"]' 0 "agnhost $AGNHOST_VERSION (test/images/agnhost) built by hybrid-lab from $src on Debian $SUITE minbase with curl, ping and iperf3"

  r=$WORK/roots/cluster-dns
  tiny_root "$r"
  install -m 0755 "$BIN/hl-cluster-dns" "$r/hl-cluster-dns"
  make_image "$CLUSTER_DNS_IMAGE" "$r" '["/hl-cluster-dns"]' null 0 "hl-cluster-dns $CLUSTER_DNS_VERSION: hybrid-lab's stand-in for CoreDNS (not CoreDNS)"
}

assemble() {
  local kdir=$OUT/kubernetes/$K8S_VERSION bin
  mkdir -p "$kdir/linux/amd64" "$OUT/extras/linux/amd64"
  for bin in kubeadm kubelet kubectl kube-proxy kube-apiserver kube-controller-manager kube-scheduler crictl; do
    install -m 0755 "$BIN/$bin" "$kdir/linux/amd64/$bin"
  done
  install -m 0755 "$BIN/agnhost" "$OUT/extras/linux/amd64/agnhost"
  install -m 0755 "$BIN/hl-cluster-dns" "$OUT/extras/linux/amd64/hl-cluster-dns"
  install -m 0755 "$WORK/pause" "$OUT/extras/linux/amd64/pause"
  "$kdir/linux/amd64/kubeadm" config images list --kubernetes-version "$K8S_VERSION" 2>"$WORK/logs/images-list.log" >"$kdir/images.txt" ||
    { cat "$WORK/logs/images-list.log" >&2; die "kubeadm config images list failed"; }
  AGNHOST_VERSION=$(cat "$SRC/test/images/agnhost/VERSION")
  AGNHOST_IMAGE=hybrid-lab/agnhost:$AGNHOST_VERSION
  CLUSTER_DNS_IMAGE=hybrid-lab/cluster-dns:$CLUSTER_DNS_VERSION
}

# Checks every binary runs and says what it is; the versions go into recipe.json.
check_binaries() {
  local kdir=$OUT/kubernetes/$K8S_VERSION/linux/amd64 bin out
  for bin in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy; do
    out=$("$kdir/$bin" --version 2>&1) || die "$bin --version failed: $out"
    [ "$out" = "Kubernetes $K8S_VERSION" ] || die "$bin --version says '$out'"
  done
  out=$("$kdir/kubeadm" version -o short 2>&1) || true
  [ "$out" = "$K8S_VERSION" ] || die "kubeadm version says '$out'"
  out=$("$kdir/kubectl" version --client --short 2>&1) || true
  [ "$out" = "Client Version: $K8S_VERSION" ] || die "kubectl version says '$out'"
  # kubeadm's YAML output goes through json-iterator maps: the reflect2 crash shows here.
  "$kdir/kubeadm" config print init-defaults >/dev/null 2>"$WORK/logs/init-defaults.log" ||
    { cat "$WORK/logs/init-defaults.log" >&2; die "kubeadm config print init-defaults failed (reflect2 fix?)"; }
  "$kdir/crictl" --version | grep -q 'not cri-tools' || die "crictl --version does not say what it is"
  "$OUT/extras/linux/amd64/hl-cluster-dns" --version | grep -q 'stand-in for CoreDNS' || die "hl-cluster-dns --version"
  "$OUT/extras/linux/amd64/agnhost" --help >/dev/null 2>&1 || die "agnhost --help failed"
  for bin in "$kdir"/* "$OUT"/extras/linux/amd64/*; do
    file -b "$bin" | grep -q 'statically linked' || die "$bin is not statically linked"
  done
}

write_recipe() {
  local timings f first=true images='' line ref file
  timings=$(printf '"%s",' "${TIMINGS[@]}")
  for line in "${IMAGE_LINES[@]}"; do
    ref=${line% *} file=${line#* }
    images+="$(printf '%s\n    {"ref":"%s","file":"images/linux/%s"}' "${images:+,}" "$ref" "$file")"
  done
  (cd "$OUT" && find . -type f ! -name recipe.json ! -name SHA256SUMS -printf '%P\0' | sort -z | xargs -0 sha256sum) >"$OUT/SHA256SUMS"
  {
    printf '{\n  "recipe": "%s",\n  "built": "%s",\n  "kubernetes": "%s",\n' "$recipe_hash" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$K8S_VERSION"
    printf '  "source": {"package": "kubernetes", "version": "%s", "mirror": "%s", "suite": "%s", "upstreamCommit": "%s"},\n' \
      "$SRC_VERSION" "$MIRROR" "$SUITE" "$(sed -n "s/^ *KUBE_GIT_COMMIT='\([0-9a-f]*\)'.*/\1/p" "$SRC/hack/lib/version.sh")"
    printf '  "go": "%s",\n  "fixes": ["%s"],\n' "$GO_VERSION" "$FIX_NOTE"
    printf '  "etcd": "Debian etcd-server/etcd-client %s",\n' "$ETCD_VERSION"
    printf '  "debootstrap": {"variant": "minbase", "include": "%s", "versions": "%s", "iptablesBackend": "%s"},\n' \
      "$BASE_PACKAGES" "${BASE_VERSIONS% }" "$IPTABLES_BACKEND"
    printf '  "crictl": "hybrid-lab minimal crictl %s for kubeadm 1.20, not cri-tools",\n' "$CRICTL_VERSION"
    printf '  "clusterDns": {"image": "%s", "manifest": "manifests/cluster-dns/hl-cluster-dns.yaml of hybrid-lab", "note": "a stand-in for CoreDNS, not CoreDNS"},\n' "$CLUSTER_DNS_IMAGE"
    printf '  "agnhostImage": "%s",\n' "$AGNHOST_IMAGE"
    printf '  "e2e": "e2e/e2e.json",\n'
    printf '  "notShipped": ["%s"],\n' "$(grep '/coredns:' "$OUT/kubernetes/$K8S_VERSION/images.txt" || true)"
    printf '  "images": [%s\n  ],\n' "$images"
    printf '  "timingsSeconds": [%s],\n' "${timings%,}"
    printf '  "files": ['
    while read -r sum f; do
      "$first" || printf ','
      first=false
      printf '\n    {"path": "%s", "sha256": "%s", "size": %s}' "$f" "$sum" "$(stat -c %s "$OUT/$f")"
    done <"$OUT/SHA256SUMS"
    printf '\n  ]\n}\n'
  } >"$OUT/recipe.json"
}

started=$(date +%s)
log "recipe $recipe_hash -> $dest (mirror $MIRROR)"
remove_work
mkdir -p "$WORK/logs" "$OUT"
phase packages
install_build_packages
phase sources
fetch_sources
unpack_sources
start_debootstrap
go_build
phase pause
build_pause
phase assemble
assemble
check_binaries
phase debootstrap-wait
finish_debootstrap
phase images
build_images
e2e_images
e2e_check
phase debs
stage_debs
phase_end
TIMINGS+=("total=$(($(date +%s) - started))")
write_recipe
# recipe.json marks a complete tree: it exists under $dest only after this rename.
rm -rf "$dest"
mv "$OUT" "$dest"
# The newest three recipes stay: another checkout (CI's clone of main beside a branch) keeps its hit.
find "$CACHE" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended -regex '.*/[0-9a-f]{12}' \
  ! -name "$recipe_hash" -printf '%T@ %p\n' | sort -rn | tail -n +3 | cut -d' ' -f2- |
  while IFS= read -r old; do rm -rf --one-file-system "$old"; done
log "timings (s): ${TIMINGS[*]}"
log "built $dest ($(du -sh "$dest" | cut -f1))"
finished
