/** Endpoint churn cells: every node's pods → each OS's churn Service after each step. */
import { CHURN_STEPS, type CellKey } from '../../lab/contracts/cells.ts';
import type { Endpoint } from '../../lab/contracts/results-file.ts';
import type { CellPlan } from '../model/cell-plan.ts';
import { churnPlan, churnServiceName, liveBackendNodes, liveBackends } from '../model/churn.ts';
import type { SuiteNode } from '../model/lab-driver.ts';
import { sourcePod } from '../model/workload-names.ts';
import {
  REQUESTS_PER_ENDPOINT,
  ids,
  lacking,
  nodesOf,
  pod,
  podEnd,
  serviceTarget,
} from './cell-parts.ts';
import type { MatrixRow } from './rows.ts';

/**
 * Requests every churn sweep makes at least: kube-proxy picks an endpoint at random, so a kept
 * endpoint among n live ones is missed by all of them with probability (n/(n+1))^30, under 2e-4
 * for n = 3.
 */
export const CHURN_MIN_REQUESTS = 30;

export function churn(
  row: Extract<MatrixRow, { kind: 'churn' }>,
  nodes: readonly SuiteNode[],
): CellPlan[] {
  const sources = nodesOf(nodes, row.from);
  const plan = churnPlan(nodes, row.to);
  const target = (nodesLive: readonly string[]): Endpoint =>
    serviceTarget(row.to, nodesLive, churnServiceName(row.to), `${row.to} churn service`);
  return CHURN_STEPS.flatMap((step): CellPlan[] => {
    const key = (node?: string): CellKey => ({
      kind: 'churn',
      from: row.from,
      to: row.to,
      step,
      via: 'cluster-ip',
      ...(node === undefined ? {} : { node }),
    });
    if (sources.length === 0 || plan === undefined) {
      const lacks = sources.length === 0 ? row.from : row.to;
      const meta = {
        ...ids(key()),
        title: `churn ${row.from}-to-${row.to} ${step} via cluster-ip`,
        source: podEnd(row.from, '-'),
        target: target([]),
        placement: '',
      };
      return [{ meta, skip: lacking(nodes, lacks) }];
    }
    const live = liveBackends(plan, step);
    const liveNodes = liveBackendNodes(plan, step);
    return sources.map((src): CellPlan => {
      const from = sourcePod(src.name);
      return {
        meta: {
          ...ids(key(src.name)),
          title: `churn ${row.from}-to-${row.to} ${step} ${src.name}-to-${liveNodes.join('+') || 'none'} via cluster-ip`,
          source: podEnd(row.from, src.name, from),
          target: target(liveNodes),
          placement: '',
        },
        churn: { os: row.to, step },
        probe: (w) => {
          const svc = w.churn.find((s) => s.os === row.to);
          if (svc === undefined) throw new Error(`${churnServiceName(row.to)} was not deployed`);
          const base = `http://${svc.clusterIP}:${svc.port}`;
          if (live.length === 0) {
            return {
              from,
              request: {
                kind: 'endpoints',
                base,
                service: svc.name,
                expect: [plan.deleted],
                maxRequests: 1,
              },
              // kube-proxy's iptables mode rejects a Service without endpoints; what Windows'
              // load balancer does then is not documented, so there only nothing may answer.
              check: { kind: row.from === 'linux' ? 'refused' : 'not-forwarded' },
            };
          }
          return {
            from,
            request: {
              kind: 'endpoints',
              base,
              service: svc.name,
              expect: live,
              maxRequests: REQUESTS_PER_ENDPOINT * live.length + CHURN_MIN_REQUESTS,
              minRequests: CHURN_MIN_REQUESTS,
            },
            check: {
              kind: 'every-endpoint',
              expect: live,
              source: pod(w, from).ip,
              only: true,
            },
          };
        },
      };
    });
  });
}
