#!/usr/bin/env bash
# The README's set-up and test commands, exactly as written, on a clean Debian (issue 34): the
# ```sh blocks marked <!-- ci:clean-debian quickstart --> and <!-- ci:clean-debian real-kubernetes -->
# (read from README.md by ci/tools/readme-blocks.ts, so README and check cannot drift) run as root
# in a debootstrap'd bookworm minbase root holding only a clean clone of HEAD and this machine's
# Node.js. Stops at the first README command that fails, with its exit code; prints each one's
# wall time. Then takes down every lab the commands brought up and checks nothing is left.
#
# unshare + pivot_root, not systemd-nspawn: the commands need what root has on this host —
# writable cgroup v1 hierarchies for the kubelets, /proc/sys, /sys, /dev, every capability, no
# seccomp filter — which nspawn withholds, and no init system. Not chroot either: a process that
# enters a mount namespace (nsenter --mount, as every namespace node is entered) lands at that
# namespace's root, which must be the clean root, not this host's. Namespaces of their own: PID
# (tini is its PID 1; when it ends the kernel kills whatever is left), mount (its end takes every
# mount and `ip netns` pin, all under the root's own /run), UTS and IPC. The network namespace is
# the host's, for apt and npm; netns labs create nothing in it.
#
# The Kubernetes artifact cache (HL_K8S_CACHE, default /var/cache/hybrid-lab/kubernetes) appears
# at that path inside: read-only when it holds the checkout's recipe; else writable, so the clean
# root's cold build is the one that fills it (CI builds once), or with --scratch-cache DIR an
# overlay whose writes go to DIR (the host cache read-only beneath: nothing of it changes).
#
# Usage: ci/clean-debian.sh [--scratch-cache DIR] [--results DIR] [--command CMD]
#   --results DIR   copies the last suite's test-results/ (the real-kubernetes run) to DIR
#   --command CMD   runs CMD (bash, in the checkout) instead of the README's commands: does a
#                   script install all it uses? (e.g. 'npm ci && npm run test:provision-sandbox')
#   HL_CLEAN_CACHE  roots by recipe hash and run folders (default /var/cache/hybrid-lab/clean-debian)
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_PATH=/var/cache/hybrid-lab/kubernetes
CHECKOUT=/root/hybrid-lab
# A root shell's environment on a fresh machine, plus CI=true (a missing tool fails the suite).
ROOT_ENV=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb CI=true
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
# This machine reaches the npm registry through a proxy its own CA vouches for; so does the root.
MACHINE_CA=/etc/ssl/hl-machine-ca.crt # a path no Debian package owns
[ -z "${NODE_EXTRA_CA_CERTS:-}" ] || ROOT_ENV+=("NODE_EXTRA_CA_CERTS=$MACHINE_CA")

log() { printf '%s clean-debian: %s\n' "$(date +%T)" "$*"; }
online_cpus() { seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1)); }
EXIT_NS_ORDER=75
die() {
  log "error: $*" >&2
  exit 1
}

# In the new namespaces (tini runs this as `clean-debian.sh --inside ROOT MODE CACHE SCRATCH`):
# the root's own mounts, the root made the namespace's root (this host's detached), then the
# README's commands and the teardown.
if [ "${1:-}" = --inside ]; then
  root=$2 mode=$3 cache=$4 scratch=$5
  readlink /proc/self/ns/pid >"$root/../pid-namespace"
  mount --bind "$root" "$root" # pivot_root wants a mount point
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
  mount -t tmpfs -o mode=755 run "$root/run"
  mkdir -p "$root/run/lock" "$root$K8S_PATH"
  case $mode in
    read-only) mount --bind -o ro "$cache" "$root$K8S_PATH" ;;
    writable) mount --bind "$cache" "$root$K8S_PATH" ;;
    scratch)
      mount -t overlay hl-clean-cache -o "lowerdir=$cache,upperdir=$scratch/upper,workdir=$scratch/work" \
        "$root$K8S_PATH"
      ;;
  esac
  hostname clean-debian
  cd "$root"
  pivot_root . .
  umount -l . # this host's root, which pivot_root stacked on top
  # Mount namespace ids come from per-CPU batches here, and a mount namespace can be pinned (as
  # `unshare --mount=FILE` pins each node's) only from a namespace with a smaller id: this one
  # must be below every CPU's next, or it is made again on another CPU (the caller's loop).
  for cpu in $(online_cpus); do
    : >/run/hl-probe
    taskset -c "$cpu" unshare --mount=/run/hl-probe true 2>/dev/null || exit "$EXIT_NS_ORDER"
    umount /run/hl-probe
  done
  rm /run/hl-probe
  taskset -pc "$(online_cpus | paste -sd,)" $$ >/dev/null
  in_root() { /usr/bin/env -i "${ROOT_ENV[@]}" /bin/bash -c "cd $CHECKOUT && $1"; }
  rc=0
  in_root 'bash /root/commands.sh' || rc=$?
  echo
  log "teardown (not README commands): every lab the commands brought up"
  # shellcheck disable=SC2016 # runs in the clean root's shell
  in_root 'for plan in .lab/*/plan.json; do
      [ -e "$plan" ] || continue
      name=$(basename "$(dirname "$plan")")
      echo "$name" >>/root/lab-names
      npm run --silent lab:down -- --lab "$name" || npm run --silent lab -- reap --lab "$name" || exit 1
    done
    left=$(ip netns list 2>/dev/null || true)
    [ -z "$left" ] || { printf "network namespaces left: %s\n" "$left"; exit 1; }' || { [ "$rc" -ne 0 ] || rc=1; }
  exit "$rc"
fi

scratch='' results='' command=''
while [ $# -gt 0 ]; do
  case $1 in
    --scratch-cache) scratch=$(realpath -m "${2:?--scratch-cache DIR}") && shift 2 ;;
    --results) results=$(realpath -m "${2:?--results DIR}") && shift 2 ;;
    --command) command=${2:?--command CMD} && shift 2 ;;
    *) echo "usage: $0 [--scratch-cache DIR] [--results DIR] [--command CMD]" >&2 && exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, namespaces, pivot_root)"
CLEAN_CACHE=${HL_CLEAN_CACHE:-/var/cache/hybrid-lab/clean-debian}
K8S_CACHE=$(realpath -m "${HL_K8S_CACHE:-$K8S_PATH}")

# shellcheck source=vagrant/bin/hl-apt.sh
. vagrant/bin/hl-apt.sh
# debootstrap: the root; util-linux: unshare; git: the clone; tini: PID 1 of the namespaces.
hl_apt_install debootstrap util-linux git tini

began=$SECONDS
timings=()
# Seconds since the last mark, remembered under LABEL.
mark() {
  timings+=("$1=$((SECONDS - began))s")
  began=$SECONDS
}

run='' ns_pid=''
cgroups_before=$(mktemp)
# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
  local status=$?
  if [ -n "$ns_pid" ] && kill -0 "$ns_pid" 2>/dev/null; then
    kill -TERM "$ns_pid" 2>/dev/null || true # unshare --kill-child: its end SIGKILLs the namespace
    wait "$ns_pid" 2>/dev/null || true
  fi
  if [ -n "$run" ]; then
    if awk -v r="$run/" 'index($2, r) == 1 {found = 1} END {exit !found}' /proc/self/mounts; then
      log "error: something is still mounted below $run; not removing it" >&2
      status=1
    else
      rm -rf --one-file-system "$run"
    fi
  fi
  rm -f "$cgroups_before"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

log "root: debootstrap bookworm minbase, cached under its recipe's hash in $CLEAN_CACHE/roots"
pristine='' mirror=''
while IFS='=' read -r key value; do
  case $key in root) pristine=$value ;; mirror) mirror=$value ;; esac
done < <(node --import tsx ci/tools/clean-root.ts "$CLEAN_CACHE/roots")
if [ ! -d "$pristine" ] || [ -z "$mirror" ]; then die "ci/tools/clean-root.ts gave no root"; fi
mark root
run=$(mktemp -d "$CLEAN_CACHE/run-XXXXXX")
root=$run/root
cp -a "$pristine" "$root"
mark copy

# What a fresh Debian 12 machine has: its mirror's sources (installer style) and no package lists.
rm -f "$root/etc/apt/sources.list"
find "$root/var/lib/apt/lists" -mindepth 1 -maxdepth 1 ! -name partial -exec rm -rf {} +
chroot "$root" chown _apt:root /var/lib/apt/lists/partial /var/cache/apt/archives/partial # as an installed system has them
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
[ -z "${NODE_EXTRA_CA_CERTS:-}" ] || install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "$root$MACHINE_CA"
echo clean-debian >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 clean-debian\n' >"$root/etc/hosts"
# This machine's Node.js: node, npm and npx (links and what they point at), npm's own folder.
node_files=()
for tool in node npm npx; do
  path=$(command -v "$tool") || die "$tool is missing here (install Node.js 20)"
  node_files+=("$path" "$(readlink -f "$path")")
done
node_files+=("$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")")
tar -C / -cf - "${node_files[@]#/}" | tar -C "$root" -xf -
log "node $(chroot "$root" /usr/bin/env -i /usr/bin/node --version), npm $(chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin npm --version)"
# A clean clone of HEAD: nothing of this work tree's uncommitted or ignored files.
head=$(git rev-parse HEAD)
git clone -q --no-hardlinks "$PWD" "$root$CHECKOUT"
git -C "$root$CHECKOUT" checkout -q --detach "$head"
log "checkout: $(git -C "$root$CHECKOUT" log -1 --format='%h %s')"
if [ -n "$command" ]; then
  printf 'set -e\n%s\n' "$command" >"$root/root/commands.sh"
else
  node --import tsx ci/tools/readme-blocks.ts "$root$CHECKOUT/README.md" >"$root/root/commands.sh"
fi
mark setup

recipe=$(bash "$root$CHECKOUT/vagrant/artifacts/kubernetes/build.sh" --recipe-hash)
mkdir -p "$K8S_CACHE"
if [ -f "$K8S_CACHE/$recipe/recipe.json" ]; then
  mode=read-only
  log "artifact cache: $K8S_CACHE holds recipe $recipe; mounted read-only"
elif [ -n "$scratch" ]; then
  mode=scratch
  mkdir -p "$scratch/upper" "$scratch/work"
  log "artifact cache: recipe $recipe is new; its build writes to $scratch/upper ($K8S_CACHE read-only beneath)"
else
  mode=writable
  log "artifact cache: recipe $recipe is new; the clean root's build fills $K8S_CACHE"
fi

# Node cgroups are the one thing a lab makes outside the namespaces (named hl-<lab>_<node>).
list_cgroups() { find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d -name 'hl-*_*' | sort; }
list_cgroups >"$cgroups_before"

log "${command:-the README commands} in the clean root (as root, in $CHECKOUT)"
for cpu in $(online_cpus); do
  taskset -c "$cpu" unshare --mount --pid --uts --ipc --fork --kill-child --propagation private -- \
    tini -- "$PWD/ci/clean-debian.sh" --inside "$root" "$mode" "$K8S_CACHE" "$scratch" &
  ns_pid=$!
  rc=0
  wait "$ns_pid" || rc=$?
  ns_pid=''
  [ "$rc" -eq "$EXIT_NS_ORDER" ] || break
  log "its mount namespace (made on CPU $cpu) could not pin a node's; made again on the next CPU"
done
[ "$rc" -ne "$EXIT_NS_ORDER" ] || log "error: no CPU gave the clean root a mount namespace that can pin a node's" >&2
mark commands

# Whatever the commands started ended with the namespace; checked, not assumed.
pidns=$(cat "$run/pid-namespace")
survivors=$(for p in /proc/[0-9]*; do
  [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$pidns" ] && echo "${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
done || true)
if [ -n "$survivors" ]; then
  log "error: processes of the clean root outlived it: $survivors" >&2
  [ "$rc" -ne 0 ] || rc=1
fi
# Only the clean root's labs' (other labs may come and go on this machine meanwhile).
leaked=''
if [ -s "$root/root/lab-names" ]; then
  ours=$(sed 's|.*|^/sys/fs/cgroup/[^/]*/hl-&_|' "$root/root/lab-names")
  leaked=$(list_cgroups | comm -13 "$cgroups_before" - | grep -f <(printf '%s\n' "$ours") || true)
fi
if [ -n "$leaked" ]; then
  log "error: the labs left cgroups (removed now): $(echo "$leaked" | tr '\n' ' ')" >&2
  while read -r cg; do find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true; done <<<"$leaked"
  [ "$rc" -ne 0 ] || rc=1
fi
if [ -n "$results" ]; then
  rm -rf "$results" && mkdir -p "$results"
  cp -a "$root$CHECKOUT/test-results/." "$results/" 2>/dev/null || log "no test-results to copy"
fi
log "timings: ${timings[*]}"
if [ "$rc" -eq 0 ]; then log "${command:-every README command} passed"; else log "failed (exit $rc)"; fi
exit "$rc"
