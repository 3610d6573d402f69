/** `lab break` and `lab heal`: applies catalogue faults and reverts exactly what was applied. */
import { findFault } from './fault-catalogue.ts';
import type { FaultDefinition, FaultImpact } from './fault-definition.ts';
import { FaultError } from './fault-error.ts';
import { prepare, runUndo } from './fault-actions.ts';
import type { AppliedFault, UndoStep } from './fault-records.ts';
import type { FaultSession } from './fault-session.ts';
import { notApplicable, resolveTargets } from './fault-targets.ts';

export interface PlannedFault {
  fault: FaultDefinition;
  /** Nodes it acts on; empty for lab-wide faults. */
  nodes: string[];
  impact: FaultImpact;
}

/** Checks everything about `lab break FAULT [--node N]` without changing anything. */
export function planFault(session: FaultSession, id: string, node?: string): PlannedFault {
  const fault = findFault(id);
  const why = notApplicable(fault, session.plan, { cluster: session.cluster !== undefined });
  if (why !== undefined)
    throw new FaultError(`fault ${id} does not apply to lab ${session.plan.name}: ${why}`);
  const targets = resolveTargets(fault, session.plan, node);
  return { fault, nodes: targets.map((n) => n.name), impact: fault.impact(session.plan, targets) };
}

/** Reverts steps newest first; every step runs, errors are logged, the first is rethrown. */
async function undoAll(
  session: FaultSession,
  fault: string,
  steps: readonly UndoStep[],
): Promise<void> {
  const errors: unknown[] = [];
  for (const step of [...steps].reverse()) {
    try {
      await runUndo(session, step);
    } catch (error) {
      session.log.error({ fault, step, err: error }, 'undo step failed');
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
}

/**
 * Applies a fault. Each change's undo is on disk before the change is made, so a crash half-way
 * still heals; a failure half-way reverts what was made and rethrows the original error.
 */
export async function breakFault(
  session: FaultSession,
  id: string,
  node?: string,
): Promise<PlannedFault> {
  const planned = planFault(session, id, node);
  const applied = session.records.read();
  if (applied.some((a) => a.fault === id)) {
    throw new FaultError(`fault ${id} is applied already on lab ${session.plan.name}`, {
      hint: '`lab heal` reverts every applied fault',
    });
  }
  const targets = session.plan.nodes.filter((n) => planned.nodes.includes(n.name));
  const record: AppliedFault = {
    fault: id,
    nodes: planned.nodes,
    appliedAt: new Date().toISOString(),
    undo: [],
  };
  try {
    for (const action of planned.fault.actions(session.plan, targets)) {
      const change = await prepare(session, action);
      record.undo.push(...change.undo);
      session.records.write([...applied, record]);
      await change.apply();
    }
  } catch (error) {
    session.log.error({ fault: id, err: error }, 'break failed; reverting what was applied');
    try {
      await undoAll(session, id, record.undo);
      session.records.write(applied);
    } catch {
      // undoAll logged each failure; the record stays so `lab heal` can retry.
    }
    throw error;
  }
  session.log.info({ fault: id, nodes: planned.nodes }, 'fault applied');
  return planned;
}

/** Reverts every applied fault, newest first; a fault whose undo fails stays recorded for a retry. */
export async function healFaults(session: FaultSession): Promise<AppliedFault[]> {
  const applied = session.records.read();
  const remaining: AppliedFault[] = [];
  const errors: unknown[] = [];
  for (const record of [...applied].reverse()) {
    try {
      await undoAll(session, record.fault, record.undo);
      session.log.info({ fault: record.fault }, 'fault healed');
    } catch (error) {
      errors.push(error);
      remaining.unshift(record);
    }
  }
  session.records.write(remaining);
  if (errors.length > 0) throw errors[0];
  return applied;
}
