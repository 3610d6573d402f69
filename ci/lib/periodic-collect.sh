# shellcheck shell=bash
# Artifact collection for ci/periodic.sh, sourced by it (and by ci/verify-periodic.sh to exercise
# single collectors). Every collector is best effort: it logs what it could not get and returns 0,
# so collection never hides the run's real outcome.
#
# Expects: ROOT, ARTIFACTS, LAB_HOME, LAB_NAME, LAB_ID (hl-<name>), LAB_PROVIDER, LAB_CLUSTER,
# HYPERVISORS (array of "NAME local|remote URI"), and a log function.

# The harness CLI (an argv, so setsid can run it too).
LAB_CLI=(npx --no-install tsx "$ROOT/lab/cli/main.ts")
lab_cli() { "${LAB_CLI[@]}" "$@"; }

# Replaces the userinfo of every URL (scheme://user:pass@host) with ***, on stdin; up to the
# last "@" of the word, so a password with a raw "/" or "#" is hidden too.
redact_userinfo() {
  sed -E "s|([A-Za-z][A-Za-z0-9+.-]*://)[^[:space:]\"']*@|\\1***@|g"
}

# The lab's own files: what was asked for, what was planned, where it ended.
collect_lab_files() {
  local dir="$LAB_HOME/$LAB_NAME" file
  mkdir -p "$ARTIFACTS/lab"
  # The spec is the user's text: an artifacts URL in it may carry credentials.
  [ -f "$dir/spec.yaml" ] && redact_userinfo <"$dir/spec.yaml" >"$ARTIFACTS/lab/spec.yaml"
  for file in plan.json state.json; do
    [ -f "$dir/$file" ] && cp "$dir/$file" "$ARTIFACTS/lab/"
  done
  return 0
}

# Harness logs (JSON lines, secrets redacted by the harness), whatever else the provider logs
# there, and the reaper's log of the sweep before `lab up`.
collect_logs() {
  local dir="$LAB_HOME/$LAB_NAME/logs" reaper="$LAB_HOME/_reaper/logs/harness.log"
  mkdir -p "$ARTIFACTS/logs"
  if [ -d "$dir" ]; then
    cp -R "$dir/." "$ARTIFACTS/logs/"
  else
    log "no harness logs in $dir"
  fi
  [ -f "$reaper" ] && cp "$reaper" "$ARTIFACTS/logs/reaper.log"
  return 0
}

# Per node: addresses, routes, NAT rules (Linux guests) or HNS state (Windows guests).
collect_node_state() {
  if ! timeout 300 npx --no-install tsx "$ROOT/ci/tools/collect-node-state.ts" \
    --lab "$LAB_NAME" --out "$ARTIFACTS/nodes"; then
    log "could not collect node state (is the lab up?)"
  fi
  return 0
}

# netns labs: the emulated cluster's objects, the Windows CNI configs in force, workload logs.
collect_netns() {
  local dir="$LAB_HOME/$LAB_NAME/netns"
  if [ ! -d "$dir" ]; then
    log "no emulated cluster state in $dir"
    return 0
  fi
  mkdir -p "$ARTIFACTS/netns"
  [ -f "$dir/cluster.json" ] && cp "$dir/cluster.json" "$ARTIFACTS/netns/"
  [ -f "$dir/zone.json" ] && cp "$dir/zone.json" "$ARTIFACTS/netns/"
  [ -d "$dir/cni" ] && cp -R "$dir/cni" "$ARTIFACTS/netns/cni"
  [ -d "$dir/logs" ] && cp -R "$dir/logs" "$ARTIFACTS/netns/workloads"
  return 0
}

# Console log paths a domain's XML names: file-backed serial/console devices and their log files.
console_log_paths() {
  xmllint --xpath '//devices/serial[@type="file"]/source/@path | //devices/console[@type="file"]/source/@path | //devices/serial/log/@file | //devices/console/log/@file' "$1" 2>/dev/null |
    sed -E 's/^ *(path|file)="([^"]*)"$/\2/; s/" (path|file)="/\n/g' | sort -u
}

# libvirt labs: the XML of every domain and network of the lab on every hypervisor
# (vagrant/bin/hl-dump-xml.sh), and each domain's console log where the hypervisor is this machine.
collect_libvirt() {
  if ! command -v virsh >/dev/null; then
    log "virsh is not installed; no domain XML"
    return 0
  fi
  local entry hv where uri out err files xml domain node path xmllint=true
  command -v xmllint >/dev/null || xmllint=false
  for entry in "${HYPERVISORS[@]}"; do
    read -r hv where uri <<<"$entry"
    out="$ARTIFACTS/libvirt/$hv"
    mkdir -p "$out"
    err=$(mktemp)
    # It prints each file once written whole, so a failure part way still lists the good ones;
    # a virsh error inside its listing does not fail it, hence stderr is checked too.
    if ! files=$(timeout 300 "$ROOT/vagrant/bin/hl-dump-xml.sh" "$uri" "$LAB_ID" "$out" 2>"$err") ||
      [ -s "$err" ]; then
      log "hl-dump-xml.sh $uri $LAB_ID on $hv: $(cat "$err")"
    fi
    rm -f "$err"
    while IFS= read -r xml; do
      [[ $xml == */domain-*.xml ]] || continue
      domain=${xml##*/domain-}
      domain=${domain%.xml}
      # vagrant-libvirt names domains "<lab id>_<node>".
      node=${domain#"${LAB_ID}_"}
      if [ "$where" = remote ]; then
        log "$domain: console log stays on remote hypervisor $hv ($uri)"
        continue
      fi
      if [ "$xmllint" = false ]; then
        log "$domain: xmllint is not installed; its console log paths cannot be read"
        continue
      fi
      while IFS= read -r path; do
        [ -n "$path" ] || continue
        mkdir -p "$ARTIFACTS/nodes/$node"
        if [ -r "$path" ]; then
          cp "$path" "$ARTIFACTS/nodes/$node/console-$(basename "$path")"
        else
          log "$domain: console log $path is not readable"
        fi
      done < <(console_log_paths "$xml")
    done <<<"$files"
  done
  return 0
}

# kubeadm labs: the nodes, a cluster-info dump of every namespace, and the suite's probe pods.
collect_kubernetes() {
  local kubeconfig="$LAB_HOME/$LAB_NAME/kubeconfig" out="$ARTIFACTS/kubernetes"
  if [ ! -f "$kubeconfig" ]; then
    log "no kubeconfig at $kubeconfig; no Kubernetes artifacts"
    return 0
  fi
  if ! command -v kubectl >/dev/null; then
    log "kubectl is not installed; no Kubernetes artifacts"
    return 0
  fi
  mkdir -p "$out"
  local -a kc=(kubectl --kubeconfig "$kubeconfig" --request-timeout=30s)
  timeout 90 "${kc[@]}" get nodes -o wide >"$out/nodes.txt" 2>&1 ||
    log "kubectl get nodes failed (see kubernetes/nodes.txt)"
  timeout 600 "${kc[@]}" cluster-info dump --all-namespaces \
    --output-directory "$out/cluster-info" >"$out/cluster-info.log" 2>&1 ||
    log "kubectl cluster-info dump failed (see kubernetes/cluster-info.log)"
  timeout 120 "${kc[@]}" describe pods --all-namespaces -l "hybrid-lab/lab=$LAB_NAME" \
    >"$out/probe-pods.txt" 2>&1 ||
    log "kubectl describe of the probe pods failed (see kubernetes/probe-pods.txt)"
  return 0
}

# Everything that needs the lab still standing, guarded by what the lab is.
collect_before_down() {
  collect_lab_files
  case "$LAB_PROVIDER" in
    netns) collect_node_state && collect_netns ;;
    libvirt) collect_node_state && collect_libvirt ;;
  esac
  if [ "$LAB_CLUSTER" = kubeadm ]; then collect_kubernetes; fi
  return 0
}
