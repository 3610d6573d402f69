#!/bin/bash
# Pod workload: holds one connection open where it runs (a pod's network namespace, or inside a
# Linux agnhost container), so the suite can ask on the same connection much later.
#
#   held-connection.sh hold DIR tcp|udp HOST PORT   connect; print `holding …` or `failed …`;
#                                                   then answer requests until `close`
#   held-connection.sh ask DIR SEQ SECONDS VERB ARG one request: http PATH | udp MESSAGE | close
#
# bash's /dev/tcp gives one TCP connection (HTTP/1.1 keep-alive requests go over it), /dev/udp one
# connected UDP socket of one source port; coreutils' timeout and dd read a datagram whole. The
# holder reads requests from the FIFO DIR/in and writes each answer to DIR/ans.SEQ (renamed into
# place), so a client that gave up never blocks it. An answer is one line: `ok BODY`,
# `timeout WHY`, `refused WHY` (a reset, a close, a port unreachable) or `error WHY`.
set -u
export LC_ALL=C

hold() {
  local dir=$1 proto=$2 host=$3 port=$4
  mkdir -p "$dir" && cd "$dir" || exit 1
  rm -f in ans.* && mkfifo in || exit 1
  # A write to a reset connection must fail with EPIPE, not end the holder.
  trap '' PIPE
  if ! { exec 3<>"/dev/$proto/$host/$port"; } 2>connect.err; then
    echo "failed $(tr '\n' ' ' <connect.err)"
    exit 0
  fi
  echo "holding $proto $host:$port pid $$"
  local seq seconds verb arg
  while :; do
    # Its folder removed (the pod's held connections cleaned up): nothing will ask any more.
    [[ -p in ]] || exit 0
    IFS=' ' read -r seq seconds verb arg <in || continue
    case $verb in
      http) ask_http "$host" "$arg" "$seconds" >"ans.$seq.tmp" ;;
      udp) ask_udp "$arg" "$seconds" >"ans.$seq.tmp" ;;
      close)
        exec 3>&-
        echo 'ok closed' >"ans.$seq.tmp"
        mv "ans.$seq.tmp" "ans.$seq"
        exit 0
        ;;
      *) echo "error unknown request '$verb'" >"ans.$seq.tmp" ;;
    esac
    mv "ans.$seq.tmp" "ans.$seq"
  done
}

# One GET on the held connection; the body's length comes from Content-Length.
ask_http() {
  local host=$1 path=$2 seconds=$3 status line rc len=0 body=''
  if ! printf 'GET %s HTTP/1.1\r\nHost: %s\r\n\r\n' "$path" "$host" >&3 2>err; then
    echo "refused the write failed: $(tr '\n' ' ' <err)"
    return
  fi
  IFS= read -r -t "$seconds" status <&3 2>err
  rc=$?
  if ((rc > 128)); then
    echo "timeout no answer on the held connection within ${seconds} s"
    return
  fi
  if ((rc != 0)) && [[ -z $status ]]; then
    if grep -qi 'reset' err; then echo 'refused the connection was reset'; else echo 'refused the far end closed the connection'; fi
    return
  fi
  while IFS= read -r -t "$seconds" line <&3; do
    line=${line%$'\r'}
    [[ -z $line ]] && break
    if [[ ${line,,} == content-length:* ]]; then
      len=${line#*:}
      len=${len//[!0-9]/}
    fi
  done
  if ((len > 0)); then IFS= read -r -N "$len" -t "$seconds" body <&3; fi
  case $status in
    'HTTP/1.'?' 2'*) echo "ok $body" ;;
    *) echo "error HTTP ${status%$'\r'}" ;;
  esac
}

# One datagram from the held socket, and the one reply datagram (dd reads it whole).
ask_udp() {
  local message=$1 seconds=$2 reply rc
  if ! printf '%s' "$message" >&3 2>err; then
    echo "refused the send failed: $(tr '\n' ' ' <err)"
    return
  fi
  reply=$(timeout "$seconds" dd bs=65535 count=1 status=none <&3 2>err)
  rc=$?
  if ((rc == 124)); then
    echo "timeout no reply datagram within ${seconds} s"
  elif ((rc != 0)); then
    if grep -qi 'refused' err; then echo 'refused port unreachable'; else echo "error $(tr '\n' ' ' <err)"; fi
  else
    echo "ok $reply"
  fi
}

# The client side: hand the request over (bounded: a holder that died never takes it) and wait
# for its answer file.
ask() {
  local dir=$1 seq=$2 seconds=$3 verb=$4 arg=${5:-}
  # shellcheck disable=SC2016 # expanded by the inner bash
  if ! timeout "$seconds" bash -c 'printf "%s\n" "$1" >"$2/in"' ask "$seq $seconds $verb $arg" "$dir" 2>/dev/null; then
    echo "timeout the holder did not take the request within ${seconds} s (it is gone)"
    return
  fi
  local waited=0 limit=$(((seconds + 2) * 20))
  while [[ ! -e $dir/ans.$seq ]]; do
    if ((waited++ > limit)); then
      echo "timeout the holder gave no answer"
      return
    fi
    sleep 0.05
  done
  cat "$dir/ans.$seq"
  rm -f "$dir/ans.$seq"
}

case ${1:-} in
  hold) shift && hold "$@" ;;
  ask) shift && ask "$@" ;;
  *)
    echo "usage: held-connection.sh hold DIR tcp|udp HOST PORT | ask DIR SEQ SECONDS VERB ARG" >&2
    exit 2
    ;;
esac
