#!/usr/bin/env bash
# containerd (systemd cgroups, the sandbox image kubeadm expects), runc and the CNI plugins:
# from the artifact cache's Debian repository when there is one, else from Debian's mirrors.
# With a pin (HL_CONTAINERD_VERSION), containerd is upstream's static release of that version in
# /usr/local, run by a unit of the project's own; runc and the CNI plugins stay Debian's.
# containerd's config is the harness's config/containerd.toml, installed only when the
# containerd that will read it reports every setting of it back.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEBIAN_CONTAINERD=/usr/bin/containerd
PINNED_CONTAINERD=/usr/local/bin/containerd
UNIT=/etc/systemd/system/containerd.service
restart=no

apt_env=(env DEBIAN_FRONTEND=noninteractive)

# apt with only the cache as a source and lists of its own: the system's sources stay untouched.
apt_from_cache() {
  local state=$HL_STAGE/apt
  mkdir -p "$state/lists/partial"
  local -a opts=(
    -o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$state/lists" -o APT::Get::List-Cleanup=0
  )
  "${apt_env[@]}" apt-get "${opts[@]}" -qq update
  "${apt_env[@]}" apt-get "${opts[@]}" install -y -qq --no-install-recommends "$@"
}

install_packages() {
  local packages missing=() pkg
  read -r -a packages <<<"$HL_DEBIAN_PACKAGES"
  for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    hl_ok "packages ${packages[*]}"
    return 0
  fi
  case $HL_ARTIFACTS_SOURCE in
    dir)
      local repo=$HL_ARTIFACTS_DIR/$HL_DEBIAN_REPO
      [[ -s $repo/Packages ]] || hl_die "$(hl_missing_message "$HL_DEBIAN_REPO/Packages (a Debian repository of ${missing[*]})")" "$HL_EXIT_MISSING"
      mkdir -p "$HL_STAGE/apt"
      echo "deb [trusted=yes] file:$repo ./" >"$HL_STAGE/apt/sources.list"
      apt_from_cache "${missing[@]}" ||
        hl_die "$(hl_missing_message "$HL_DEBIAN_REPO: ${missing[*]} or a dependency of them (re-run stage-debian-packages.sh)")" "$HL_EXIT_MISSING"
      ;;
    url)
      mkdir -p "$HL_STAGE/apt"
      echo "deb [trusted=yes] $HL_ARTIFACTS_URL/$HL_DEBIAN_REPO ./" >"$HL_STAGE/apt/sources.list"
      apt_from_cache "${missing[@]}" ||
        hl_die "$(hl_missing_message "$HL_DEBIAN_REPO: ${missing[*]} or a dependency of them")" "$HL_EXIT_MISSING"
      ;;
    *)
      "${apt_env[@]}" apt-get -qq update
      "${apt_env[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
      ;;
  esac
  hl_changed "installed ${missing[*]}"
}

# Debian installs the CNI plugins in /usr/lib/cni; containerd and flannel use /opt/cni/bin.
link_cni_plugins() {
  local plugin link
  mkdir -p /opt/cni/bin
  for plugin in /usr/lib/cni/*; do
    link=/opt/cni/bin/$(basename "$plugin")
    if [[ $(readlink "$link" 2>/dev/null || true) != "$plugin" ]]; then
      ln -sfn "$plugin" "$link"
      hl_changed "$link"
    fi
  done
  mkdir -p /etc/cni/net.d
}

# The version a containerd binary reports ("1.7.22", "2.0.0", Debian's "1.6.20~ds1"), or nothing.
containerd_version() {
  local out _ version=''
  out=$("$1" --version 2>/dev/null) || return 0
  read -r _ _ version _ <<<"$out" || true
  echo "${version#v}"
}

# Unpacks upstream's static release (bin/ only) into /usr/local; its containerd must be the pin.
install_pinned() {
  local archive=$1 have
  tar -xzf "$archive" -C /usr/local --no-same-owner bin || hl_die "cannot unpack bin/ of $archive"
  have=$(containerd_version "$PINNED_CONTAINERD")
  [[ $have == "$HL_CONTAINERD_VERSION" ]] ||
    hl_die "$HL_ARTIFACT_CONTAINERD holds containerd ${have:-(none)}, the lab pins $HL_CONTAINERD_VERSION"
  hl_changed "containerd $have in /usr/local/bin from $HL_ARTIFACT_CONTAINERD"
  restart=yes
}

# The unit of the pinned containerd, after containerd's own (containerd.service of its
# repository): delegated cgroups, only the daemon killed on stop so containers outlive a
# restart. No LimitNOFILE, as there since containerd 2.0: systemd's default (1024:524288) holds,
# and containerd raises its own soft limit.
write_unit() {
  if hl_write_file "$UNIT" 644 <<'UNIT'; then restart=yes; fi
[Unit]
Description=containerd, upstream's static release (installed by hybrid-lab)
Documentation=https://containerd.io
After=network.target local-fs.target

[Service]
ExecStartPre=-/sbin/modprobe overlay
ExecStart=/usr/local/bin/containerd
Type=notify
Delegate=yes
KillMode=process
Restart=always
RestartSec=5
LimitNPROC=infinity
LimitCORE=infinity
TasksMax=infinity
OOMScoreAdjust=-999

[Install]
WantedBy=multi-user.target
UNIT
}

# Without a pin Debian's unit runs containerd: a unit left by an earlier pinned run goes.
remove_unit() {
  if [[ -f $UNIT ]] && grep -q 'installed by hybrid-lab' "$UNIT"; then
    rm -f "$UNIT"
    hl_changed "removed $UNIT (containerd is Debian's package again)"
    restart=yes
  fi
}

# The "key = value" lines of CONFIG that `BIN --config CONFIG config dump` does not show, quotes
# aside: containerd drops keys it does not know, so a setting missing there is not in effect.
unapplied_settings() {
  local config=$1 bin=$2 dump
  dump=$("$bin" --config "$config" config dump) || hl_die "$bin cannot read $config"
  grep -Fxv -f <(settings_of <<<"$dump") <(settings_of <"$config" | grep -v '^version = ') || true
}
# The "key = value" lines of a TOML text on stdin, trimmed and without quotes.
settings_of() {
  sed -E "s/^[[:space:]]+//; s/[[:space:]]+$//; s/[\"']//g" | grep -E '^[A-Za-z_]+ = ' || true
}

# Installs config/containerd.toml for BIN, the containerd the service runs, when BIN is the
# major version it is written for and applies every setting of it.
configure() {
  local bin=$1 config=$HL_STAGE/config/containerd.toml have unapplied
  have=$(containerd_version "$bin")
  [[ ${have%%.*} == "$HL_CONTAINERD_MAJOR" ]] || hl_die "$bin is containerd ${have:-(none)}; \
config/containerd.toml is for containerd $HL_CONTAINERD_MAJOR.x (pin kubeadm.versions.containerd)"
  unapplied=$(unapplied_settings "$config" "$bin")
  [[ -z $unapplied ]] ||
    hl_die "containerd $have ignores these settings of config/containerd.toml (containerd config dump lacks them): ${unapplied//$'\n'/; }"
  if hl_install_file "$config" /etc/containerd/config.toml 644; then
    restart=yes
  else
    hl_ok /etc/containerd/config.toml
  fi
}

main() {
  local bin=$DEBIAN_CONTAINERD archive=''
  install_packages
  if [[ -n $HL_CONTAINERD_VERSION ]]; then
    bin=$PINNED_CONTAINERD
    # Looked up after the packages (they bring curl, which a download needs), before any other
    # change: a cache without it changes nothing more.
    if [[ $(containerd_version "$bin") != "$HL_CONTAINERD_VERSION" ]]; then
      archive=$(hl_artifact "$HL_ARTIFACT_CONTAINERD" "$HL_CONTAINERD_URL")
    fi
  fi
  link_cni_plugins
  if [[ -z $HL_CONTAINERD_VERSION ]]; then
    remove_unit
  else
    if [[ -n $archive ]]; then
      install_pinned "$archive"
    else
      hl_ok "containerd $HL_CONTAINERD_VERSION in /usr/local/bin"
    fi
    write_unit
  fi
  configure "$bin"
  hl_write_file /etc/crictl.yaml 644 <<EOF2 || true
runtime-endpoint: $HL_CRI_SOCKET
image-endpoint: $HL_CRI_SOCKET
timeout: 10
EOF2
  hl_ensure_service containerd "$restart"
}

# Sourced by its tests for the functions alone.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
