# shellcheck shell=bash
# Helpers every hybrid-lab Linux node script sources: settings, change reporting, artifacts.
# Each script prints "hl: changed: ..." for every change it makes, so a re-run that prints none
# changed nothing.

HL_STAGE=${HL_STAGE:-/opt/hybrid-lab}
HL_CONFIG=${HL_CONFIG:-$HL_STAGE/config/node.env}
if [[ ! -r $HL_CONFIG ]]; then
  echo "hl: error: $HL_CONFIG is missing; the harness uploads it before running any script" >&2
  exit 2
fi
# shellcheck source=/dev/null
. "$HL_CONFIG"

# Exit codes the harness understands: 3 = an artifact is missing, 75 = try again later.
export HL_EXIT_MISSING=3
export HL_EXIT_TRANSIENT=75

hl_log() { echo "hl: $*"; }
hl_ok() { echo "hl: ok: $*"; }
hl_changed() { echo "hl: changed: $*"; }
hl_die() {
  echo "hl: error: $1" >&2
  exit "${2:-1}"
}

# True when systemd runs this machine (false in a chroot or a plain container).
hl_systemd_running() { [[ -d /run/systemd/system ]]; }

# hl_write_file PATH MODE < CONTENT: writes only when content or mode differ; status 0 = changed.
hl_write_file() {
  local path=$1 mode=$2 tmp
  tmp=$(mktemp)
  cat >"$tmp"
  if [[ -f $path ]] && cmp -s "$tmp" "$path"; then
    rm -f "$tmp"
    if [[ $(stat -c %a "$path") != "$mode" ]]; then
      chmod "$mode" "$path"
      hl_changed "mode $mode of $path"
      return 0
    fi
    return 1
  fi
  install -D -m "$mode" "$tmp" "$path"
  rm -f "$tmp"
  hl_changed "$path"
  return 0
}

# hl_install_file SRC DEST MODE: copies when content differs; status 0 = changed.
hl_install_file() {
  local src=$1 dest=$2 mode=$3
  if [[ -f $dest ]] && cmp -s "$src" "$dest" && [[ $(stat -c %a "$dest") == "$mode" ]]; then
    return 1
  fi
  install -D -m "$mode" "$src" "$dest"
  hl_changed "$dest"
  return 0
}

hl_missing_message() {
  echo "artifact missing: $1 for Kubernetes $HL_K8S_VERSION — stage it in ${HL_ARTIFACTS_HINT:-the artifact cache}"
}

# hl_artifact REL [UPSTREAM]: prints the local path of a cache file, downloading it first from
# the cache URL when there is one, or from UPSTREAM when the lab has no cache; fails naming the
# file when it is in neither place.
hl_artifact() {
  local rel=$1 upstream=${2:-} path="$HL_ARTIFACTS_DIR/$1" url=''
  if [[ -s $path ]]; then
    echo "$path"
    return 0
  fi
  case $HL_ARTIFACTS_SOURCE in
    url) url=$HL_ARTIFACTS_URL/$rel ;;
    none) url=$upstream ;;
  esac
  if [[ -n $url ]]; then
    mkdir -p "$(dirname "$path")"
    if curl -fsSL --retry 3 --max-time 600 -o "$path.part" "$url"; then
      mv "$path.part" "$path"
      echo "$path"
      return 0
    fi
    rm -f "$path.part"
  fi
  hl_die "$(hl_missing_message "$rel")" "$HL_EXIT_MISSING"
}

# hl_ensure_service NAME CHANGED: enables NAME, and (re)starts it where systemd runs.
hl_ensure_service() {
  local name=$1 changed=$2
  if ! systemctl is-enabled --quiet "$name" 2>/dev/null; then
    systemctl enable "$name" >/dev/null 2>&1
    hl_changed "service $name enabled"
  fi
  if ! hl_systemd_running; then
    hl_log "systemd is not running here (chroot or container): $name is enabled but not started"
    return 0
  fi
  if [[ $changed == yes ]]; then
    systemctl daemon-reload
    systemctl restart "$name"
    hl_changed "service $name restarted"
  elif ! systemctl is-active --quiet "$name"; then
    systemctl start "$name"
    hl_changed "service $name started"
  else
    hl_ok "service $name running"
  fi
}
