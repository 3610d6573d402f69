#!/usr/bin/env bash
# containerd (systemd cgroups, the sandbox image kubeadm expects), runc and the CNI plugins:
# from the artifact cache's Debian repository when there is one, else from Debian's mirrors.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

read -r -a packages <<<"$HL_DEBIAN_PACKAGES"
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done

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

if [[ ${#missing[@]} -eq 0 ]]; then
  hl_ok "packages ${packages[*]}"
else
  case $HL_ARTIFACTS_SOURCE in
    dir)
      repo=$HL_ARTIFACTS_DIR/$HL_DEBIAN_REPO
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
fi

# Debian installs the CNI plugins in /usr/lib/cni; containerd and flannel use /opt/cni/bin.
mkdir -p /opt/cni/bin
for plugin in /usr/lib/cni/*; do
  link=/opt/cni/bin/$(basename "$plugin")
  if [[ $(readlink "$link" 2>/dev/null || true) != "$plugin" ]]; then
    ln -sfn "$plugin" "$link"
    hl_changed "$link"
  fi
done
mkdir -p /etc/cni/net.d

config=$(containerd config default |
  sed -E -e 's/^([[:space:]]*SystemdCgroup[[:space:]]*=).*/\1 true/' \
    -e "s#^([[:space:]]*sandbox_image[[:space:]]*=).*#\\1 \"$HL_PAUSE_IMAGE\"#")
grep -Eq '^[[:space:]]*SystemdCgroup = true' <<<"$config" || hl_die "containerd's default config has no SystemdCgroup option to set"
restart=no
if hl_write_file /etc/containerd/config.toml 644 <<<"$config"; then restart=yes; fi
hl_write_file /etc/crictl.yaml 644 <<EOF2 || true
runtime-endpoint: $HL_CRI_SOCKET
image-endpoint: $HL_CRI_SOCKET
timeout: 10
EOF2
hl_ensure_service containerd "$restart"
