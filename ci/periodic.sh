#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The nightly periodic job: reap what earlier runs left → lab up → npm test → collect → lab down.
# Teardown runs from an EXIT trap on every path: success, failure, and SIGINT/SIGTERM/SIGHUP
# from a CI timeout or cancel (the running step gets the signal first, then collection and
# `lab down` run; a second signal does not cut them short).
#
# usage: ci/periodic.sh [PRESET|SPEC_FILE|SHORTHAND] [-- MOCHA_ARGS...]
#        (no spec: lab.yaml in the repository, else the default preset, as `lab up` does)
#
# Environment:
#   ARTIFACTS          where artifacts go (Prow sets it); default: test-results/
#   LAB_HOME           lab state folder; default: .lab
#   PROFILE            suite profile, passed to npm test (strict | known-limitations)
#   HISTORY_STORE      if set: add results.json to this history store, write trend.html/trend.md
#   HISTORY_PRESET     series name in the history (default: the lab's name)
#   HISTORY_LINK       link stored with the run (the CI job's URL)
#   PERIODIC_AFTER_UP  command (bash -c) run after `lab up`, before the suite, with LAB set
#                      (fault injection: `npm run lab -- break FAULT`)
#   PERIODIC_REAP      lab (default): reap leftovers of this job's lab only;
#                      all: every hybrid-lab leftover not up (dedicated hypervisors only)
#   PERIODIC_GRACE     seconds a signalled step gets before SIGKILL (default 60)
#   DISRUPTIONS, DISRUPTION_NODES, OVER_TIME, LONG_LIVED_IDLE_MS
#                      the over-time rows and the disruption phase (docs/disruption.md): on in
#                      the nightly (DISRUPTIONS=on, LONG_LIVED_IDLE_MS=240000) unless set here
#   PERIODIC_E2E       1 (default): after the suite, upstream's e2e.test on the lab (`npm run e2e`;
#                      an emulated lab gets a skipped entry saying why); 0: no e2e step
#   PERIODIC_E2E_ARGS  arguments for `npm run e2e --` (e.g. --focus REGEX; split on spaces)
#
# Exit: 0 every cell as expected · 1-124 the suite's exit code (mocha: failed tests; 1 too when
#       the suite passed and the e2e step found a failure or a disagreement) ·
#       125 infrastructure failure (reap, lab up or teardown failed, the lab was not ready,
#       no results) · 64 bad usage or invalid spec (nothing created) · 128+N signal N.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT EXIT_USAGE=64 EXIT_INFRA=125

usage() { sed -n '3,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

SPEC=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -*) echo "periodic: unknown option $1" >&2; usage >&2; exit "$EXIT_USAGE" ;;
  esac
  SPEC=$1
  shift
fi
if [ $# -gt 0 ]; then
  if [ "$1" != "--" ]; then
    echo "periodic: unexpected argument $1 (mocha arguments go after --)" >&2
    exit "$EXIT_USAGE"
  fi
  shift
fi
MOCHA_ARGS=("$@")
# A spec file is named relative to where the job was started; everything else runs from ROOT.
if [ -n "$SPEC" ] && [ -f "$SPEC" ]; then SPEC=$(realpath "$SPEC"); fi
cd "$ROOT" || exit "$EXIT_INFRA"

ARTIFACTS=${ARTIFACTS:-$ROOT/test-results}
mkdir -p "$ARTIFACTS" "${LAB_HOME:=$ROOT/.lab}" || exit "$EXIT_INFRA"
ARTIFACTS=$(cd "$ARTIFACTS" && pwd)
LAB_HOME=$(cd "$LAB_HOME" && pwd)
export ARTIFACTS LAB_HOME
GRACE=${PERIODIC_GRACE:-60}
WORK=$(mktemp -d)

# Only what this script writes is cleared: stale results must never pass for this run's.
rm -rf "${ARTIFACTS:?}"/{junit_01.xml,junit_e2e.xml,upstream-e2e.json,e2e,e2e-harness.log,summary.md,matrix.html,results.json,trend.html,trend.md,periodic.log,lab,logs,nodes,netns,libvirt,kubernetes}
# The console goes to periodic.log too; tee ignores signals so teardown output is never lost.
exec > >(trap '' INT TERM HUP; exec tee -a "$ARTIFACTS/periodic.log") 2>&1
TEE_PID=$!

log() { printf '%s periodic: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# shellcheck source=lib/periodic-collect.sh
source "$ROOT/ci/lib/periodic-collect.sh"

CHILD=""         # process group of the running step
SIGNAL=""        # the signal that interrupted the run
INFRA=""         # why the run is an infrastructure failure
USAGE=""         # why the arguments or spec were refused
UP_STARTED=""    # lab up was attempted: teardown is owed
SUITE_STARTED="" # the suite was started: its (partial) results go into the history
SUITE_RC=""      # the suite's exit code, once it ended
E2E_RC=""        # the e2e step's exit code, once it ended
TEARDOWN_FAILED=0 # lab down and the sweep after it both failed
LAB_NAME="" LAB_ID="" LAB_PROVIDER="" LAB_CLUSTER="" LAB_EMULATED=""
HYPERVISORS=()

# Runs "$@" in its own process group, so a signal reaches all of it (npm → sh → mocha).
run_step() {
  setsid "$@" &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return "$rc"
}

# Asks the running step to stop, and kills it when it has not after $GRACE seconds.
stop_step() {
  [ -n "$CHILD" ] || return 0
  kill -TERM -- "-$CHILD" 2>/dev/null || true
  local waited=0
  while kill -0 -- "-$CHILD" 2>/dev/null && [ "$waited" -lt "$GRACE" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 -- "-$CHILD" 2>/dev/null; then
    log "step did not stop within ${GRACE}s; killing it"
    kill -KILL -- "-$CHILD" 2>/dev/null || true
  fi
  wait "$CHILD" 2>/dev/null || true
  CHILD=""
}

on_signal() {
  trap '' INT TERM HUP
  SIGNAL=$1
  log "received SIG$1: stopping the running step, then collecting and tearing down"
  stop_step
  exit $((128 + $(kill -l "$1")))
}

infra() {
  INFRA=$1
  log "infrastructure failure: $1"
  exit "$EXIT_INFRA"
}

# Reads `key=value` lines of ci/tools/periodic-facts.ts into LAB_* and HYPERVISORS.
read_plan_facts() {
  local key value
  while IFS='=' read -r key value; do
    case "$key" in
      name) LAB_NAME=$value ;;
      id) LAB_ID=$value ;;
      provider) LAB_PROVIDER=$value ;;
      cluster) LAB_CLUSTER=$value ;;
      emulated) LAB_EMULATED=$value ;;
      hypervisor) HYPERVISORS+=("$value") ;;
    esac
  done <"$1"
  [ -n "$LAB_NAME" ] && [ -n "$LAB_ID" ] && [ -n "$LAB_PROVIDER" ]
}

# How the run ended → the exit code (see the header).
exit_code() {
  if [ -n "$SIGNAL" ]; then echo $((128 + $(kill -l "$SIGNAL"))); return; fi
  if [ -n "$USAGE" ]; then echo "$EXIT_USAGE"; return; fi
  if [ -n "$INFRA" ] || [ -z "$SUITE_RC" ]; then echo "$EXIT_INFRA"; return; fi
  # A failed teardown turns a green run red but never hides the suite's own failure.
  if [ "$SUITE_RC" -eq 0 ]; then
    if [ -n "$E2E_RC" ] && [ "$E2E_RC" -ne 0 ]; then echo 1; return; fi
    echo $((TEARDOWN_FAILED ? EXIT_INFRA : 0))
    return
  fi
  local status
  status=$(npx --no-install tsx ci/tools/periodic-facts.ts results "$ARTIFACTS/results.json")
  case "$status" in
    failed) echo $((SUITE_RC > 124 ? 124 : SUITE_RC)) ;;
    passed) echo $((SUITE_RC > 124 ? 124 : SUITE_RC)) ;;
    *) echo "$EXIT_INFRA" ;; # infra, interrupted, or no readable results
  esac
}

add_to_history() {
  [ -n "${HISTORY_STORE:-}" ] || return 0
  if [ ! -f "$ARTIFACTS/results.json" ]; then
    log "no results.json: nothing to add to the history"
    return 0
  fi
  local -a link=()
  [ -n "${HISTORY_LINK:-}" ] && link=(--link "$HISTORY_LINK")
  [ -n "${HISTORY_PRESET:-}" ] && link+=(--preset "$HISTORY_PRESET")
  if ! lab_cli history add "$ARTIFACTS/results.json" --store "$HISTORY_STORE" "${link[@]}" ||
    ! lab_cli history report --store "$HISTORY_STORE" --out "$ARTIFACTS"; then
    log "could not update the history in $HISTORY_STORE"
  fi
}

finish() {
  local rc=$?
  trap '' INT TERM HUP
  stop_step
  if [ -n "$UP_STARTED" ]; then
    log "collecting artifacts of lab $LAB_NAME ($LAB_PROVIDER${LAB_EMULATED:+, emulated=$LAB_EMULATED})"
    collect_before_down
    log "tearing down lab $LAB_NAME"
    if ! lab_cli down --lab "$LAB_NAME"; then
      log "lab down failed; sweeping by lab id"
      lab_cli reap --lab "$LAB_NAME" || {
        log "TEARDOWN FAILED: resources of $LAB_NAME may be left; the next run reaps them"
        TEARDOWN_FAILED=1
      }
    fi
    collect_lab_files
    collect_logs
  fi
  if [ -n "$SUITE_STARTED" ]; then add_to_history; fi
  local code
  code=$(exit_code)
  log "done: lab ${LAB_NAME:-?}, suite exit ${SUITE_RC:-none}${E2E_RC:+, e2e exit $E2E_RC}${INFRA:+, infrastructure: $INFRA}${SIGNAL:+, interrupted by SIG$SIGNAL}$( ((TEARDOWN_FAILED)) && echo ', teardown FAILED') → exit $code (script status $rc)"
  log "artifacts: $ARTIFACTS"
  rm -rf "$WORK"
  # Let tee drain what was written, without hanging on a stray process that holds the pipe.
  exec 1>&- 2>&-
  local waited=0
  while kill -0 "$TEE_PID" 2>/dev/null && [ "$waited" -lt 50 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  exit "$code"
}

trap finish EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

SPEC_ARGS=()
[ -n "$SPEC" ] && SPEC_ARGS=(--spec "$SPEC")

log "planning ${SPEC:-the default spec} (artifacts: $ARTIFACTS, LAB_HOME: $LAB_HOME)"
run_step "${LAB_CLI[@]}" plan "${SPEC_ARGS[@]}" >"$WORK/plan.json"
case $? in
  0) ;;
  2) USAGE="invalid spec"; log "invalid spec ${SPEC:-(default)}; nothing was created"; exit "$EXIT_USAGE" ;;
  *) infra "lab plan failed" ;;
esac
if ! npx --no-install tsx ci/tools/periodic-facts.ts plan "$WORK/plan.json" >"$WORK/facts" ||
  ! read_plan_facts "$WORK/facts"; then
  infra "cannot read the plan's facts"
fi
export LAB=$LAB_NAME
# kubeadm labs: the suite keeps its namespace so the collector can describe the probe pods; the
# namespace goes with the VMs at `lab down`.
if [ "$LAB_CLUSTER" = kubeadm ]; then export HYBRID_KEEP_RUN_NAMESPACE=1; fi
# Only the collectors use kubectl: its absence must not fail the run, nor go unnoticed.
if [ "$LAB_CLUSTER" = kubeadm ] && ! command -v kubectl >/dev/null; then
  log "WARNING: kubectl is not installed: no Kubernetes artifacts (nodes, cluster-info dump, probe pods) will be collected for kubeadm lab $LAB_NAME"
fi

if [ "${PERIODIC_REAP:-lab}" = all ]; then
  log "reaping every hybrid-lab leftover that is not up"
  run_step "${LAB_CLI[@]}" reap || infra "lab reap failed"
else
  log "reaping leftovers of lab $LAB_NAME from earlier runs"
  run_step "${LAB_CLI[@]}" reap --lab "$LAB_NAME" || infra "lab reap --lab $LAB_NAME failed"
fi

UP_STARTED=1
log "bringing lab $LAB_NAME up ($LAB_PROVIDER)"
if run_step "${LAB_CLI[@]}" up "${SPEC_ARGS[@]}"; then
  if [ -n "${PERIODIC_AFTER_UP:-}" ]; then
    log "after-up hook: $PERIODIC_AFTER_UP"
    run_step bash -c "$PERIODIC_AFTER_UP" || infra "after-up hook failed"
  fi
else
  INFRA="lab up failed"
  log "lab up failed; the suite still runs to report it as an infrastructure failure"
fi

log "running the suite against $LAB_NAME${MOCHA_ARGS[*]:+ (${MOCHA_ARGS[*]})}"
export RESULTS_DIR=$ARTIFACTS
# What a restart, a reboot or an idle hour does is the nightly's to find (docs/disruption.md).
export DISRUPTIONS=${DISRUPTIONS:-on} LONG_LIVED_IDLE_MS=${LONG_LIVED_IDLE_MS:-240000}
SUITE_STARTED=1
rc=0
run_step npm test -- "${MOCHA_ARGS[@]}" || rc=$?
SUITE_RC=$rc
log "suite exited $SUITE_RC"

# Upstream's verdict beside the matrix's: e2e.test on the same lab, merged into its results.
if [ "${PERIODIC_E2E:-1}" != 0 ] && [ -z "$INFRA" ]; then
  read -r -a E2E_ARGS <<<"${PERIODIC_E2E_ARGS:-}"
  log "running upstream e2e.test against $LAB_NAME${E2E_ARGS[*]:+ (${E2E_ARGS[*]})}"
  rc=0
  run_step npm run --silent e2e -- "${E2E_ARGS[@]}" || rc=$?
  E2E_RC=$rc
  log "e2e exited $E2E_RC"
fi
