/** A real-cluster matrix run and an upstream e2e.test run of the same lab, for the upstream writers' tests. */
import type { CellResult, Verdict } from '../../lab/contracts/results-file.ts';
import {
  upstreamTotals,
  type UpstreamRun,
  type UpstreamTest,
} from '../../lab/contracts/upstream-results.ts';
import { makeReport, type Report } from '../model/report.ts';

export const POD_SERVICE_UDP =
  '[sig-network] Networking Granular Checks: Services should function for pod-Service: udp';
export const HAIRPIN =
  '[sig-network] Services should allow pods to hairpin back to themselves through services';

function cell(row: string, node: string, via: string, verdict: Verdict): CellResult {
  return {
    row,
    cell: `${row}/${node}/${via}`,
    title: `${row.replace('/', ' ')} ${node} via ${via}`,
    source: { os: 'linux', node, label: 'linux pod' },
    target: { os: 'linux', node: 'cp1,lin1,lin2', label: 'linux service' },
    via,
    placement: '',
    expected: 'ok',
    verdict,
    ...(verdict === 'pass' ? { actual: 'ok' as const } : { actual: 'timeout' as const }),
    detail: verdict === 'pass' ? '' : 'no answer within 3000 ms',
    durationMs: 40,
    attempts: 1,
  };
}

/** The matrix of lab k35 with lin1's UDP Service cell red when `broken`. */
export function matrixReport(broken: boolean): Report {
  return makeReport(
    {
      runId: 'run-k35',
      lab: 'k35',
      provider: 'netns',
      emulated: false,
      kubernetesVersion: '1.20.2',
      cni: 'bridge/host-gw',
      osBuilds: {},
      profile: 'strict',
      startedAt: '2026-11-27T14:00:00.000Z',
      finishedAt: '2026-11-27T14:01:00.000Z',
    },
    [
      cell('pod-to-service-udp/linux-to-linux', 'cp1', 'cluster-ip', 'pass'),
      cell('pod-to-service-udp/linux-to-linux', 'lin1', 'cluster-ip', broken ? 'fail' : 'pass'),
      cell('hairpin/linux', 'lin1', 'cluster-ip', 'pass'),
    ],
  );
}

const spec = (name: string, verdict: Verdict, extra: Partial<UpstreamTest> = {}): UpstreamTest => ({
  name,
  verdict,
  selected: true,
  durationMs: 30_000,
  ...extra,
});

/** An upstream run of lab k35 in which the UDP Service spec `udp` (pass or fail). */
export function upstreamRun(udp: 'pass' | 'fail'): UpstreamRun {
  const tests = [
    spec(
      POD_SERVICE_UDP,
      udp,
      udp === 'fail'
        ? {
            message:
              '/go/src/k8s.io/kubernetes/test/e2e/framework/network/utils.go:831\nfailed dialing endpoint, did not find expected responses',
          }
        : {},
    ),
    spec(HAIRPIN, 'pass'),
    spec(
      '[sig-network] DNS should provide DNS for pods for Hostname [LinuxOnly] [Conformance]',
      'expected-failure',
      {
        reason: 'the stand-in has no such records',
        message: 'timed out',
      },
    ),
    spec('[sig-network] Services should create a LoadBalancer <&>', 'skipped', {
      selected: false,
      reason: 'left out: needs a cloud provider or a load balancer',
    }),
    spec(
      '[sig-windows] Services should be able to create a functioning NodePort service for Windows',
      'skipped',
      {
        reason: 'skipped by e2e.test: Only supported for node OS distro [windows] (not debian)',
      },
    ),
  ];
  return {
    engine: 'e2e.test v1.20.2',
    lab: 'k35',
    status: 'ran',
    focus: '(Granular)',
    skip: '(\\[Serial\\])',
    startedAt: '2026-11-27T14:02:00.000Z',
    finishedAt: '2026-11-27T14:10:00.000Z',
    tests,
    totals: upstreamTotals(tests),
  };
}
