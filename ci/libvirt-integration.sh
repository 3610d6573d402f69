#!/usr/bin/env bash
# Issue 5 on real VMs, isolated: a network namespace plays the hypervisor host. Installs what it
# needs, builds (or reuses) the Debian box, starts virtlogd, libvirtd and an sshd (for the
# qemu+ssh:// hypervisor entry) inside the namespace, runs
# lab/providers/libvirt/libvirt-integration.test.ts there, then removes the namespace and stops
# every daemon it started. VM traffic never leaves the namespace. Re-runnable; root only.
# The artifact cache the kubeadm lab's VMs install from (Kubernetes 1.20.2 built from Debian's
# source, images, the nodes' Debian packages) is built first, in this (root) namespace: only here
# is the mirror reachable, never from the VMs (vagrant/artifacts/kubernetes/build.sh; a cache
# hit unless its recipe changed).
# Then the provider benchmark (HL_LIBVIRT_BENCH=0 skips it) into test-results/bench.json ("libvirt").
# HL_IT_TIER picks the tests (docs/ci.md): `ci` (per-change CI) the libvirt-emulated preset on the
# fewest VMs that carry the suite across the VM network (cp1 and win1, one hypervisor entry): up,
# the suite's rows that cross the VM network, down; no artifact cache, no benchmark. `full` (the
# default, the nightly) everything: the preset's three VMs over both entries, a ping between the
# entries, snapshot and restore (the suite then runs on the restored lab), the nightly collector,
# the kubeadm VMs, a harness killed while provisioning and reaped, the benchmark.
# HL_IT_GREP=PATTERN runs only the tests whose title matches (mocha --grep), e.g. "libvirt-kubeadm";
# HL_IT_SUITE_GREP=PATTERN only the suite's cells that match (npm test -- --grep) on the emulated VMs;
# HL_IT_EMULATED_NODES="cp1 win1" and HL_IT_HYPERVISORS=1 the emulated lab's VMs and entries.
# The libvirt-kubeadm lab runs where KVM works; under QEMU software emulation it skips, saying why,
# unless HL_IT_KUBEADM=1 (the suite on it: HL_IT_KUBEADM_SUITE=1).
# shellcheck disable=SC2317 # the functions run through step() and the EXIT trap
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

NS_PREFIX=hlci-virt-    # not "hl-": `lab reap` owns hl-* namespaces
NS="${NS_PREFIX}$$"
SSH_PORT=2222
BRIDGE=hlbr0
LAB_GATEWAY=192.168.200.1/24
EXTERNAL=198.51.100.1/24
APT_PACKAGES=(vagrant vagrant-libvirt libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils
  debootstrap fdisk openssh-server openssh-client dnsmasq-base ebtables iproute2 procps dpkg-dev tini
  libxml2-utils openssl) # xmllint: the nightly collector reads console log paths from domain XML; openssl: the emulated API server stand-in's certificate
ARTIFACTS=''
TIER=${HL_IT_TIER:-full}
case $TIER in
  # Mocha's --grep is a regular expression over the full title: the preset's tests but the full
  # tier's. The suite on the VMs: the rows whose traffic crosses the VM network (pod to pod, to a
  # Service, NodePort from outside, outbound NAT, DNS): 50 cells instead of 229 (more than 17 min
  # under QEMU); every row of the matrix runs on the netns labs in CI and here in full tier.
  ci)
    GREP_ARGS=(--grep 'the libvirt-emulated preset(?!.*\(full tier\))')
    # The row name follows the suite's title, "hybrid matrix on LAB (libvirt, EMULATED)".
    export HL_IT_SUITE_GREP='\) (pod-to-pod|pod-to-service|nodeport|outbound-nat|dns) '
    # A Linux and a Windows node, each its own VM, on one entry: every cell of those rows that
    # crosses nodes crosses the VM network; three VMs on two cores made each one slower.
    export HL_IT_EMULATED_NODES='cp1 win1' HL_IT_HYPERVISORS=1
    ;;
  full) GREP_ARGS=() ;;
  *) echo "HL_IT_TIER must be ci or full, not '$TIER'" >&2 && exit 2 ;;
esac
[ -z "${HL_IT_GREP:-}" ] || GREP_ARGS=(--grep "$HL_IT_GREP")

log() { printf '%s libvirt-it: %s\n' "$(date +%T)" "$*"; }
started_at=$(date +%s)
declare -A took

# shellcheck source=vagrant/bin/hl-apt.sh
. vagrant/bin/hl-apt.sh
install_packages() { hl_apt_install "${APT_PACKAGES[@]}"; }

# Kills every process in a namespace, then deletes it.
remove_namespace() {
  local ns=$1 pids
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086 # a list of pids
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 50); do
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      [ -z "$pids" ] && break
      sleep 0.1
    done
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  fi
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "/etc/netns/$ns"
}

work='' made_run_sshd=false pool_existed=true
cleanup() {
  local rc=$?
  if ip netns list | grep -q "^$NS\b"; then
    log "cleaning up namespace $NS"
    in_ns bash vagrant/bin/hl-destroy-orphans.sh qemu:///system --all || rc=1
    remove_box_volumes
    if [ "$pool_existed" = false ]; then
      in_ns virsh -q pool-destroy default >/dev/null 2>&1 || true
      in_ns virsh -q pool-undefine default >/dev/null 2>&1 || true
    fi
    remove_namespace "$NS"
  fi
  [ "$made_run_sshd" = false ] || rmdir /run/sshd 2>/dev/null || true
  # libvirt's per-domain logs and the ssh hypervisor's console logs of this test's labs.
  rm -f /var/log/libvirt/qemu/hl-libvirt-emulated_* /var/log/libvirt/qemu/hl-libvirt-reap_* \
    /var/log/libvirt/qemu/hl-libvirt-kubeadm_* \
    /var/log/libvirt/qemu/hl-bench-par_* /var/log/libvirt/qemu/hl-bench-seq_*
  vagrant global-status --prune >/dev/null 2>&1 || true
  [ -z "$work" ] || rm -rf "$work"
  left=$(ip netns list | grep -c "^$NS_PREFIX" || true)
  [ "$left" -eq 0 ] || { log "namespaces left behind: $(ip netns list | grep "^$NS_PREFIX")"; rc=1; }
  log "total $(($(date +%s) - started_at)) s; exit $rc"
  exit "$rc"
}

in_ns() { ip netns exec "$NS" "$@"; }

# The box images vagrant-libvirt uploaded into the default pool (a killed upload leaves a part).
remove_box_volumes() {
  local vol
  for vol in $(in_ns virsh -q vol-list default 2>/dev/null | awk '$1 ~ /^hybrid-lab-VAGRANTSLASH-/ {print $1}'); do
    in_ns virsh -q vol-delete --pool default "$vol" >/dev/null || true
  done
}

step() {
  local name=$1 began
  shift
  began=$(date +%s)
  log "$name ..."
  "$@"
  took[$name]=$(($(date +%s) - began))
  log "$name: ${took[$name]} s"
}

refuse_foreign_libvirtd() {
  local ns
  # A killed earlier run leaves its namespace; it is ours by name.
  for ns in $(ip netns list | awk -v p="$NS_PREFIX" 'index($1, p) == 1 {print $1}'); do
    log "removing namespace $ns left by an earlier run"
    NS=$ns
    in_ns bash vagrant/bin/hl-destroy-orphans.sh qemu:///system --all || true
    remove_namespace "$ns"
  done
  NS="${NS_PREFIX}$$"
  if pgrep -x libvirtd >/dev/null || pgrep -x virtqemud >/dev/null; then
    log "a libvirt daemon already runs on this machine; this test starts its own in a namespace"
    exit 1
  fi
  # The work folder (ssh key, kubeconfigs, logs) of a run killed before its cleanup; no run is
  # going on (no libvirt daemon), so none is in use.
  rm -rf /tmp/hlci-virt.*
}

build_artifacts() {
  ARTIFACTS=$(bash vagrant/artifacts/kubernetes/build.sh | tail -n1)
  log "artifact cache: $ARTIFACTS"
}

setup_namespace() {
  work=$(mktemp -d /tmp/hlci-virt.XXXXXX)
  ip netns add "$NS"
  in_ns ip link set lo up
  # The lab bridge both hypervisor entries attach to, with the gateway and external address:
  # this "host" plays the outside world of the emulated cluster.
  in_ns ip link add "$BRIDGE" type bridge
  in_ns ip addr add "$LAB_GATEWAY" dev "$BRIDGE"
  in_ns ip addr add "$EXTERNAL" dev "$BRIDGE"
  in_ns ip link set "$BRIDGE" up
  # /etc/netns/NS/ssh replaces /etc/ssh for processes in the namespace: the sshd's own config
  # and a known_hosts entry for it, so every ssh client there trusts this hypervisor host.
  local etc="/etc/netns/$NS/ssh"
  mkdir -p "$etc"
  cp -a /etc/ssh/. "$etc/"
  rm -f "$etc"/ssh_host_*
  ssh-keygen -q -t ed25519 -N '' -f "$etc/ssh_host_ed25519_key"
  ssh-keygen -q -t ed25519 -N '' -f "$work/id_ed25519"
  install -m 0600 "$work/id_ed25519.pub" "$etc/hl_authorized_keys"
  printf '[127.0.0.1]:%s %s\n' "$SSH_PORT" "$(cut -d' ' -f1,2 "$etc/ssh_host_ed25519_key.pub")" >"$etc/ssh_known_hosts"
  cat >"$etc/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
AuthorizedKeysFile /etc/ssh/hl_authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile $work/sshd.pid
EOF
  if [ ! -d /run/sshd ]; then mkdir -p /run/sshd && made_run_sshd=true; fi
}

start_daemons() {
  # Under tini -s, a subreaper: libvirt daemonizes QEMU, and where PID 1 reaps no orphans (as
  # here) a QEMU that exits stays a zombie that libvirtd waits on, minutes per domain.
  in_ns setsid tini -s -- virtlogd >"$work/virtlogd.log" 2>&1 &
  in_ns setsid tini -s -- libvirtd >"$work/libvirtd.log" 2>&1 &
  in_ns /usr/sbin/sshd -f /etc/ssh/sshd_config -E "$work/sshd.log"
  for _ in $(seq 100); do
    in_ns virsh -q -c qemu:///system version >/dev/null 2>&1 && break
    sleep 0.2
  done
  in_ns virsh -q -c qemu:///system version >/dev/null
  in_ns virsh -q pool-info default >/dev/null 2>&1 || pool_existed=false
  # A run killed with its daemons (a CI timeout) leaves its labs' domains, networks and volumes
  # defined in libvirt's files, and its box image; this daemon loads them, and they are removed
  # before any test. What cannot be removed ends the run here (set -e): no test could trust it.
  in_ns bash vagrant/bin/hl-destroy-orphans.sh qemu:///system --all
  remove_box_volumes
  in_ns virsh -q -c "qemu+ssh://root@127.0.0.1:$SSH_PORT/system?keyfile=$work/id_ed25519" version >/dev/null
  log "libvirtd, virtlogd and sshd (127.0.0.1:$SSH_PORT) run in $NS: pids $(ip netns pids "$NS" | tr '\n' ' ')"
}

run_test() {
  mkdir -p "$work/lab" test-results/libvirt
  rm -f test-results/libvirt/*-bench.json # figures of an earlier run are not this run's
  chmod 755 "$work" "$work/lab"
  set +e
  in_ns env HL_LIBVIRT_IT=1 CI=true LAB_HOME="$work/lab" RESULTS_DIR="$PWD/test-results/libvirt" \
    HL_IT_BRIDGE="$BRIDGE" HL_IT_SSH_URI="qemu+ssh://root@127.0.0.1:$SSH_PORT/system?keyfile=$work/id_ed25519" \
    HL_IT_ARTIFACTS="$ARTIFACTS" HL_IT_SUITE_GREP="${HL_IT_SUITE_GREP:-}" \
    HL_IT_EMULATED_NODES="${HL_IT_EMULATED_NODES:-}" HL_IT_HYPERVISORS="${HL_IT_HYPERVISORS:-2}" npx mocha --import=tsx --timeout 0 "${GREP_ARGS[@]}" \
    lab/providers/libvirt/libvirt-integration.test.ts
  test_rc=$?
  set -e
  local dir dest
  for dir in "$work/lab"/*/logs; do
    [ -d "$dir" ] || continue
    dest="test-results/libvirt/$(basename "$(dirname "$dir")")-logs"
    rm -rf "$dest" && cp -r "$dir" "$dest"
  done
  # Each VM lab's snapshot restore against a fresh up (the kubeadm lab's phases too).
  if [ -s test-results/libvirt/emulated-bench.json ]; then
    merge_bench libvirtEmulated test-results/libvirt/emulated-bench.json
  fi
  if [ -s test-results/libvirt/kubeadm-bench.json ]; then
    merge_bench libvirtKubeadm test-results/libvirt/kubeadm-bench.json
  fi
}

# The provider benchmark (two hypervisors in parallel vs one after the other), when asked for.
run_bench() {
  mkdir -p "$work/bench"
  chmod 755 "$work/bench"
  in_ns env CI=true LAB_HOME="$work/bench" HL_IT_BRIDGE="$BRIDGE" \
    HL_IT_SSH_URI="qemu+ssh://root@127.0.0.1:$SSH_PORT/system?keyfile=$work/id_ed25519" \
    node --import tsx specs/bench/libvirt-bench.ts >test-results/libvirt/bench.json
  cat test-results/libvirt/bench.json
  merge_bench libvirt test-results/libvirt/bench.json
}

# Puts FILE's figures under KEY of test-results/bench.json; npm run bench writes the netns
# figures beside them and keeps them.
merge_bench() {
  # shellcheck disable=SC2016 # JavaScript, not shell
  node -e '
    const fs = require("fs"), out = "test-results/bench.json";
    const all = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, "utf8")) : {};
    all[process.argv[1]] = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    fs.writeFileSync(out, JSON.stringify(all, null, 2) + "\n");' "$1" "$2"
}

main() {
  if [ "$(id -u)" -ne 0 ]; then
    log "needs root (namespaces, libvirtd, loop devices)"
    exit 1
  fi
  trap cleanup EXIT
  # A signal (a cancelled CI job) ends the script through its EXIT trap too: without these bash
  # dies at once and leaves the namespace, its daemons and the VMs (seen when a run was stopped).
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
  step packages install_packages
  refuse_foreign_libvirtd
  step box bash vagrant/boxes/debian/build.sh
  [ "$TIER" = ci ] || step artifacts build_artifacts
  step namespace setup_namespace
  step daemons start_daemons
  test_rc=1
  step test run_test
  if [ "$test_rc" -eq 0 ] && [ "$TIER" = full ] && [ "${HL_LIBVIRT_BENCH:-1}" = 1 ]; then step bench run_bench; fi
  log "tier $TIER; timings (s): packages ${took[packages]}, box ${took[box]}, artifacts ${took[artifacts]:-skipped}, daemons ${took[daemons]}, test ${took[test]}, bench ${took[bench]:-skipped} (up, suite, down, kill+reap: test-results/libvirt/libvirt-timings.json)"
  exit "$test_rc"
}

main "$@"
