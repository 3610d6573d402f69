#!/bin/sh
# hybrid-lab pod helper: the container-runtime side of emulated pods on a VM node, one ssh call
# per operation. Installed as /opt/hybrid-lab/bin/hl-pod by vm-node-setup.ts; runs as root.
#   sandbox-add NETNS                          (resolv.conf on stdin)
#   sandbox-del NETNS...                       prints "removed netns NETNS" per namespace
#   start NETNS|- LOG ERE TIMEOUT_MS -- ARGV   prints "pid=N" and "ready=LINE"
#   signal-wait PID SIGNAL LOG ERE TIMEOUT_MS  exit 3 when PID is not running
#   write FILE                                 (content on stdin, replaced atomically)
# Exit codes: 0 done, 1 failed (details on stderr), 2 usage, 3 not running, 124 timed out.
set -eu

usage() {
  sed -n '4,8p' "$0" >&2
  exit 2
}

now_ms() {
  echo $(($(date +%s%N) / 1000000))
}

# True when PID runs and is not a zombie.
alive() {
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  case "$state" in Z*) return 1 ;; esac
  return 0
}

# Lines of FILE matching the extended regex, 0 when none or no file.
count() {
  n=$(grep -c -E -e "$2" "$1" 2>/dev/null) || true
  echo "${n:-0}"
}

sandbox_add() {
  [ $# -eq 1 ] || usage
  mkdir -p "/etc/netns/$1"
  cat >"/etc/netns/$1/resolv.conf"
  ip netns add "$1"
}

sandbox_del() {
  [ $# -ge 1 ] || usage
  pids=$(for ns in "$@"; do ip netns pids "$ns" 2>/dev/null || true; done)
  # shellcheck disable=SC2086 # a list of pids
  if [ -n "$pids" ]; then kill -KILL $pids 2>/dev/null || true; fi
  deadline=$(($(now_ms) + 5000))
  for pid in $pids; do
    while alive "$pid"; do
      [ "$(now_ms)" -le "$deadline" ] || { echo "pid $pid survived SIGKILL" >&2; exit 1; }
      sleep 0.02
    done
  done
  left=''
  for ns in "$@"; do
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
    if ip netns list | grep -q -x -e "$ns" -e "$ns (id: .*)"; then left="$left $ns"; else echo "removed netns $ns"; fi
  done
  [ -z "$left" ] || { echo "could not delete network namespaces:$left" >&2; exit 1; }
}

start() {
  if [ $# -lt 6 ] || [ "$5" != -- ]; then usage; fi
  ns=$1 log=$2 ready=$3 timeout=$4
  shift 5
  mkdir -p "$(dirname "$log")"
  : >"$log"
  if [ "$ns" = - ]; then
    setsid "$@" >"$log" 2>&1 </dev/null &
  else
    setsid ip netns exec "$ns" "$@" >"$log" 2>&1 </dev/null &
  fi
  pid=$!
  deadline=$(($(now_ms) + timeout))
  while :; do
    if line=$(grep -m 1 -E -e "$ready" "$log" 2>/dev/null); then
      printf 'pid=%s\nready=%s\n' "$pid" "$line"
      exit 0
    fi
    if ! alive "$pid"; then
      echo "exited before it was ready; output:" >&2
      cat "$log" >&2
      exit 1
    fi
    if [ "$(now_ms)" -gt "$deadline" ]; then
      kill "$pid" 2>/dev/null || true
      echo "not ready after $timeout ms; output so far:" >&2
      cat "$log" >&2
      exit 124
    fi
    sleep 0.05
  done
}

signal_wait() {
  [ $# -eq 5 ] || usage
  pid=$1 signal=${2#SIG} log=$3 pattern=$4 timeout=$5
  alive "$pid" || exit 3
  before=$(count "$log" "$pattern")
  kill -s "$signal" "$pid"
  deadline=$(($(now_ms) + timeout))
  while [ "$(count "$log" "$pattern")" -le "$before" ]; do
    if [ "$(now_ms)" -gt "$deadline" ]; then
      echo "pid $pid logged no line matching $pattern within $timeout ms after SIG$signal; log tail:" >&2
      tail -c 500 "$log" >&2 || true
      exit 124
    fi
    sleep 0.02
  done
}

write_file() {
  [ $# -eq 1 ] || usage
  mkdir -p "$(dirname "$1")"
  cat >"$1.tmp"
  mv -f "$1.tmp" "$1"
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
  sandbox-add) sandbox_add "$@" ;;
  sandbox-del) sandbox_del "$@" ;;
  start) start "$@" ;;
  signal-wait) signal_wait "$@" ;;
  write) write_file "$@" ;;
  *) usage ;;
esac
