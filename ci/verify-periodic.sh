#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Verifies the nightly job end to end on this machine (root, netns): runs ci/periodic.sh on the
# default preset exactly as a nightly job does, checks the artifact set and the teardown, feeds
# three runs (the second with an injected fault) into a history store and checks that the trend
# names the failing cells and then the flaky ones; then checks SIGTERM teardown and the
# infrastructure exit code. Each run uses its own LAB_HOME and ARTIFACTS under a temp folder.
#
#   VERIFY_SPEC   the spec periodic.sh gets (default: hybrid, the default preset)
#   VERIFY_KEEP   keep the temp folder (artifacts, history, trend.html) for a look afterwards
#   VERIFY_FAULT  the after-up command that breaks run 2 (default: `lab break
#                 exception-list-no-cluster-cidr`: pod-to-pod from Windows pods arrives SNATed)
#
# Ends with mocha-style "N passing / N failing / N pending" lines (so .ci/run's run_mocha counts
# them) and one line "N passed, N failed, N skipped".
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
SPEC=${VERIFY_SPEC:-hybrid}
WORK=$(mktemp -d /tmp/hl-verify-periodic.XXXXXX)
HISTORY="$WORK/history"
passed=0 failed=0 skipped=0

ok() { passed=$((passed + 1)); echo "  ✔ $*"; }
bad() { failed=$((failed + 1)); echo "  ✘ $*"; }
# Under CI=true nothing here may skip: this machine class has all it needs.
skip() {
  if [ "${CI:-}" = true ]; then
    bad "cannot run (CI=true): $*"
  else
    skipped=$((skipped + 1))
    echo "  - skipped: $*"
  fi
}
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
# A fact from a JSON file: node evaluates EXPR with `d` bound to the parsed file.
json() { node -e "const d=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')); console.log($2)" "$1"; }

totals() {
  printf '\n  %d passing\n  %d failing\n  %d pending\n' "$passed" "$failed" "$skipped"
  echo "${passed} passed, ${failed} failed, ${skipped} skipped"
}

cleanup() {
  if [ -n "${VERIFY_KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
  echo "verify-periodic: needs root and network namespaces (the netns provider)"
  skip "periodic job verification: not root / no netns here"
  totals
  [ "$failed" -eq 0 ]
  exit
fi
if ! npx --no-install tsx lab/cli/main.ts history --help >/dev/null 2>&1; then
  bad "lab history is not registered in lab/cli/main.ts (registerHistoryCommands(program))"
  totals
  exit 1
fi

LAB=$(npx --no-install tsx lab/cli/main.ts plan --spec "$SPEC" | json /dev/stdin d.name)
if [ -z "$LAB" ]; then
  bad "cannot plan $SPEC"
  totals
  exit 1
fi
# The injected fault runs as periodic.sh's after-up hook; `lab` finds the lab through $LAB.
FAULT=${VERIFY_FAULT:-'npm run --silent lab -- break exception-list-no-cluster-cidr'}

# periodic RUN [ENV=VALUE...]: one nightly run into $WORK/RUN, like a CI job; sets RC.
periodic() {
  local run=$1
  shift
  mkdir -p "$WORK/$run/artifacts" "$WORK/$run/lab-home"
  env ARTIFACTS="$WORK/$run/artifacts" LAB_HOME="$WORK/$run/lab-home" HISTORY_STORE="$HISTORY" \
    "$@" ci/periodic.sh "$SPEC" >"$WORK/$run.log" 2>&1
  RC=$?
  echo "== $run: ci/periodic.sh $SPEC exited $RC (log: $run.log)"
}

only_windows_sourced() { ! grep -Ev '^(pod-to-pod(-udp)?|icmp)/windows-to-' <<<"$FAILING"; }
# listed TREND HEADING TITLE TEXT: a row of the trend.md section HEADING names TITLE and shows TEXT.
listed() {
  awk -v h="$2" 'index($0,h)==1{on=1;next} /^### /{on=0} on' "$1" | grep -F -- "$3" | grep -F -- "$4" >/dev/null
}
no_private_keys() { ! grep -rlE 'BEGIN [A-Z ]*PRIVATE KEY' "$1"; }
no_leftovers() { ! ip netns list | grep -q "^hl-$LAB-"; }
lab_down() { [ "$(json "$WORK/$1/lab-home/$LAB/state.json" d.phase)" = down ]; }
has() { [ -s "$WORK/$1/artifacts/$2" ]; }

echo "== verify-periodic: spec $SPEC (lab $LAB), work folder $WORK"

# The nightly's over-time rows and disruption phase (on by default) in the first run, on one node
# and with a short idle time; the runs after it without, so the trend compares the matrix alone.
periodic run1 DISRUPTION_NODES=lin1 LONG_LIVED_IDLE_MS=30000
check "run1 (clean) exits 0" [ "$RC" -eq 0 ]
check "run1 ran the disruption phase on lin1, each cell with its time to green" \
  [ "$(json "$WORK/run1/artifacts/results.json" "d.cells.filter(c=>c.cell.startsWith('disruption/node-reboot/lin1/')&&c.verdict==='pass'&&c.recovery?.timeToGreenMs>=0).length>50")" = true ]
check "run1 held its long-lived connections" \
  [ "$(json "$WORK/run1/artifacts/results.json" "d.cells.filter(c=>c.cell.startsWith('long-lived-')&&c.verdict==='pass').length")" -ge 20 ]
export DISRUPTIONS=off OVER_TIME=off
for file in junit_01.xml summary.md matrix.html results.json periodic.log logs/harness.log \
  lab/plan.json lab/state.json netns/cluster.json trend.html trend.md; do
  check "run1 artifact $file" has run1 "$file"
done
check "run1 junit_01.xml is well-formed with one testcase per cell" \
  [ "$(xmllint --xpath 'count(//testcase)' "$WORK/run1/artifacts/junit_01.xml" 2>/dev/null)" = \
  "$(json "$WORK/run1/artifacts/results.json" d.cells.length)" ]
for node in $(json "$WORK/run1/artifacts/lab/plan.json" "d.nodes.map(n=>n.name).join(' ')"); do
  check "run1 node state of $node" has run1 "nodes/$node/network.txt"
done
for node in $(json "$WORK/run1/artifacts/lab/plan.json" "d.nodes.filter(n=>n.os==='windows').map(n=>n.name).join(' ')"); do
  check "run1 Windows CNI config of $node" has run1 "netns/cni/$node.conf"
done
check "run1 results are labelled emulated" [ "$(json "$WORK/run1/artifacts/results.json" d.run.emulated)" = true ]
check "run1 summary.md says EMULATED" grep -q EMULATED "$WORK/run1/artifacts/summary.md"
check "run1 upstream e2e.test is skipped on the emulated lab, saying why" \
  [ "$(json "$WORK/run1/artifacts/results.json" d.upstream.status)" = skipped ]
check "run1 summary.md says why upstream e2e.test did not run" grep -q 'Skipped: the lab is emulated' "$WORK/run1/artifacts/summary.md"
check "run1 junit_e2e.xml is valid JUnit" \
  xmllint --noout --schema specs/report/junit.xsd "$WORK/run1/artifacts/junit_e2e.xml"
check "run1 harness log records the teardown" grep -q '"lab is down"' "$WORK/run1/artifacts/logs/harness.log"
check "run1 artifacts hold no private keys" no_private_keys "$WORK/run1/artifacts"
check "run1 lab is down" lab_down run1
check "run1 left no network namespace" no_leftovers

periodic run2 PERIODIC_AFTER_UP="$FAULT"
FAILING=$(json "$WORK/run2/artifacts/results.json" "d.cells.filter(c=>c.verdict==='fail').map(c=>c.cell).join('\n')")
check "run2 (fault) exits with the suite's code ($RC)" test "$RC" -ge 1 -a "$RC" -le 124
check "run2 fault made cells fail" [ -n "$FAILING" ]
check "run2 fault failed only pod-to-pod cells (TCP, UDP, ICMP) from Windows pods" only_windows_sourced
RUN2_ID=$(json "$WORK/run2/artifacts/results.json" d.run.runId)
TREND2="$WORK/run2/artifacts/trend.md"
while IFS= read -r cell; do
  title=$(json "$WORK/run2/artifacts/results.json" "d.cells.find(c=>c.cell==='$cell').title")
  check "after run2 the trend lists $cell as failing since $RUN2_ID" \
    listed "$TREND2" '### ❌ Failing now' "$title" "run $RUN2_ID"
done <<<"$FAILING"
check "after run2 nothing is flaky yet" grep -q '^### 🔀 Flaky (0)' "$TREND2"
check "run2 lab is down" lab_down run2
check "run2 left no network namespace" no_leftovers

periodic run3
check "run3 (clean again) exits 0" [ "$RC" -eq 0 ]
TREND3="$WORK/run3/artifacts/trend.md"
check "after run3 no cell is failing" grep -q '^### ❌ Failing now (0)' "$TREND3"
check "after run3 exactly the faulted cells are flaky" \
  grep -q "^### 🔀 Flaky ($(grep -c . <<<"$FAILING"))" "$TREND3"
while IFS= read -r cell; do
  title=$(json "$WORK/run2/artifacts/results.json" "d.cells.find(c=>c.cell==='$cell').title")
  check "after run3 the trend lists $cell as flaky (67%)" listed "$TREND3" '### 🔀 Flaky' "$title" '67%'
done <<<"$FAILING"
check "trend counts 3 runs of $LAB" grep -qE "^\| $LAB \(EMULATED\) \| netns \| 3 / 3 \|" "$TREND3"
check "trend.md labels the runs emulated" grep -q 'Includes EMULATED runs' "$TREND3"
check "trend.html labels the runs emulated" grep -q 'Includes EMULATED runs' "$WORK/run3/artifacts/trend.html"
check "history store is one JSON line per run" [ "$(wc -l <"$HISTORY/$LAB.jsonl")" -eq 3 ]

echo "== SIGTERM while the suite runs"
mkdir -p "$WORK/run4/artifacts" "$WORK/run4/lab-home"
ARTIFACTS="$WORK/run4/artifacts" LAB_HOME="$WORK/run4/lab-home" ci/periodic.sh "$SPEC" >"$WORK/run4.log" 2>&1 &
pid=$!
# Once mocha prints the suite title its reporter is listening: a signal now yields partial results.
for _ in $(seq 1 600); do grep -q 'hybrid matrix on' "$WORK/run4.log" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
RC=$?
check "run4 (SIGTERM) exits 143 after teardown" [ "$RC" -eq 143 ]
check "run4 wrote partial results marked interrupted" \
  [ "$(json "$WORK/run4/artifacts/results.json" d.interrupted)" = SIGTERM ]
check "run4 lab is down" lab_down run4
check "run4 left no network namespace" no_leftovers

echo "== lab up fails (existing provider, unreadable kubeconfig)"
printf 'name: ci-verify-broken\nprovider: existing\nkubeconfig: %s/missing-kubeconfig\n' "$WORK" >"$WORK/broken.yaml"
mkdir -p "$WORK/run5/artifacts" "$WORK/run5/lab-home"
ARTIFACTS="$WORK/run5/artifacts" LAB_HOME="$WORK/run5/lab-home" ci/periodic.sh "$WORK/broken.yaml" >"$WORK/run5.log" 2>&1
RC=$?
check "run5 exits 125 (infrastructure)" [ "$RC" -eq 125 ]
check "run5 JUnit reports the infrastructure failure as its own testcase" \
  grep -q 'classname="infrastructure"' "$WORK/run5/artifacts/junit_01.xml"

ARTIFACTS="$WORK/run6" ci/periodic.sh no-such-preset-or-file >"$WORK/run6.log" 2>&1
RC=$?
check "an invalid spec exits 64 and creates nothing" [ "$RC" -eq 64 ]

# The libvirt collector (domain XML, console logs) is checked on the real VMs of
# lab/providers/libvirt/libvirt-integration.test.ts, where libvirtd runs.

totals
[ "$failed" -eq 0 ]
