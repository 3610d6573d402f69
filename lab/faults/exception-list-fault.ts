/** The Windows OutBoundNAT ExceptionList faults: one CIDR dropped from it on the Windows nodes. */
import type { LabPlan } from '../plan/lab-plan.ts';
import type { RowKind } from '../contracts/cells.ts';
import type { FaultDefinition } from './fault-definition.ts';
import { names } from './fault-nodes.ts';
import { nodeNames } from './impacts.ts';

/** A CIDR dropped from the Windows OutBoundNAT ExceptionList: `cells` from Windows pods get SNATed. */
export function exceptionListFault(
  id: string,
  summary: string,
  cidr: (plan: LabPlan) => string,
  kinds: readonly RowKind[],
  outcomes: readonly string[] = ['wrong-source-ip'],
): FaultDefinition {
  return {
    id,
    summary,
    scope: { kind: 'nodes', os: 'windows' },
    requires: { os: ['windows'], cluster: true },
    actions: (plan, targets) =>
      targets.map((n) => ({
        kind: 'windows-cni',
        node: n.name,
        edit: { kind: 'drop-exception', cidr: cidr(plan) },
        // The SNAT applies to new flows only: a datagram on an earlier flow's ports would pass unSNATed.
        forgetFlowsFrom: n.podCIDR,
      })),
    impact: (plan, targets) => ({
      // Cells with a target: a Service without endpoints (churn's scaled-to-zero) sends nothing on.
      mustFail: [{ kinds, from: names(targets), toAny: nodeNames(plan) }],
      mayFail: [],
      outcomes: [...outcomes],
    }),
  };
}
