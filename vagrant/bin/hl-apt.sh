# shellcheck shell=bash
# Sourced by every host-side script that needs Debian packages (.ci/run, ci/*.sh, the box
# recipe): each installs what it uses itself, never counting on another script having done so.

# hl_apt_install PACKAGE...: installs those not installed yet (after apt-get update: a fresh
# machine's package lists are missing or stale), without letting them start their daemons here.
hl_apt_install() {
  local missing=() pkg guard=''
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "== installing ${missing[*]}"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    guard=/usr/sbin/policy-rc.d
  fi
  local rc=0
  DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    rc=$?
  [ -z "$guard" ] || rm -f "$guard"
  return "$rc"
}

# hl_debian_mirror: the Debian mirror to fetch from: HL_DEBIAN_MIRROR, else the first Debian
# archive this machine's own apt sources name (one-line and deb822 formats; under HL_APT_ROOT,
# default /), so a machine behind a corporate mirror needs no setting. Fails, saying so, when
# neither gives one.
hl_debian_mirror() {
  if [ -n "${HL_DEBIAN_MIRROR:-}" ]; then
    echo "${HL_DEBIAN_MIRROR%/}"
    return 0
  fi
  local etc="${HL_APT_ROOT:-}/etc/apt" url
  url=$(cat "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources 2>/dev/null |
    grep -Ev '^[[:space:]]*#' | grep -oE 'https?://[^][:space:]]+/debian/?([[:space:]]|$)' |
    sed 's/[[:space:]]*$//' | head -n1 || true)
  if [ -z "$url" ]; then
    echo "no Debian mirror: $etc/sources.list{,.d/*.list,.d/*.sources} name no .../debian archive; set HL_DEBIAN_MIRROR" >&2
    return 1
  fi
  echo "${url%/}"
}
