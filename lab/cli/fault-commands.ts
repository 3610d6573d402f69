/** `lab faults`, `lab break FAULT [--node N]`, `lab heal`: fault injection from the command line (docs/faults.md). */
import type { Command } from 'commander';
import { describeSelector } from '../faults/cell-selector.ts';
import { FAULT_CATALOGUE } from '../faults/fault-catalogue.ts';
import type { FaultDefinition, FaultImpact } from '../faults/fault-definition.ts';
import { breakFault, healFaults } from '../faults/fault-engine.ts';
import { FaultRecords } from '../faults/fault-records.ts';
import { notApplicable, resolveTargets } from '../faults/fault-targets.ts';
import { openFaultSession } from '../faults/open-fault-session.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import type { LabStore } from '../state/lab-store.ts';

const out = (text: string) => process.stdout.write(`${text}\n`);

interface CatalogueLine {
  id: string;
  summary: string;
  scope: string;
  /** Absent without a lab to judge against. */
  applies?: boolean;
  reason?: string;
  nodes?: string[];
  impact?: FaultImpact;
  applied?: boolean;
}

function scopeText(fault: FaultDefinition): string {
  const { scope } = fault;
  switch (scope.kind) {
    case 'lab':
      return 'lab';
    case 'nodes':
      return `every ${scope.os} node, or --node`;
    case 'node':
      return `one ${scope.os ?? ''}${scope.os === undefined ? '' : ' '}node (--node)`;
  }
}

function catalogueLine(fault: FaultDefinition, plan?: LabPlan, applied?: string[]): CatalogueLine {
  const line: CatalogueLine = { id: fault.id, summary: fault.summary, scope: scopeText(fault) };
  if (plan === undefined) return line;
  // Every emulated lab (netns, or libvirt with `cluster: emulated`) has the cluster API faults act through.
  const reason = notApplicable(fault, plan, { cluster: plan.emulated });
  if (reason !== undefined) return { ...line, applies: false, reason };
  const targets = resolveTargets(fault, plan);
  return {
    ...line,
    applies: true,
    nodes: targets.map((n) => n.name),
    impact: fault.impact(plan, targets),
    applied: applied?.includes(fault.id) ?? false,
  };
}

function printLine(line: CatalogueLine): void {
  const state = line.applied === true ? '  [APPLIED]' : line.applies === false ? '  [n/a]' : '';
  out(`${line.id}${state}`);
  out(`  ${line.summary}`);
  out(
    `  acts on: ${line.scope}${line.nodes === undefined || line.nodes.length === 0 ? '' : `; default ${line.nodes.join(',')}`}`,
  );
  if (line.reason !== undefined) out(`  does not apply: ${line.reason}`);
  for (const s of line.impact?.mustFail ?? []) out(`  must fail: ${describeSelector(s)}`);
  for (const s of line.impact?.mayFail ?? []) out(`  may fail:  ${describeSelector(s)}`);
  if (line.impact?.outcomes !== undefined) out(`  as: ${line.impact.outcomes.join(' | ')}`);
}

/** Adds the fault commands to the `lab` CLI. */
export function registerFaultCommands(program: Command, store: LabStore): void {
  program
    .command('faults')
    .description(
      'list the fault catalogue; with a lab, what each fault breaks there and what is applied',
    )
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .option('--json', 'print the catalogue as JSON')
    .action((opts: { lab?: string; json?: boolean }) => {
      const name = opts.lab ?? process.env.LAB ?? store.current();
      const lab = name === undefined ? undefined : store.resolveName(name);
      const plan = lab === undefined ? undefined : store.readPlan(lab);
      const state = lab === undefined ? undefined : store.readState(lab);
      const applied =
        plan === undefined || state?.phase !== 'up'
          ? []
          : new FaultRecords(store.paths(plan.name).dir, plan.id, state.updatedAt)
              .read()
              .map((a) => a.fault);
      const lines = FAULT_CATALOGUE.map((f) => catalogueLine(f, plan, applied));
      if (opts.json === true) {
        out(JSON.stringify({ lab: lab ?? null, faults: lines }, null, 2));
        return;
      }
      out(
        lab === undefined
          ? 'fault catalogue (no lab selected)\n'
          : `fault catalogue for lab ${lab}\n`,
      );
      for (const line of lines) printLine(line);
    });

  program
    .command('break')
    .description('apply a fault from the catalogue (`lab faults` lists them)')
    .argument('<fault>')
    .option('--node <node>', 'the node a node-scoped fault acts on')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .action(async (fault: string, opts: { node?: string; lab?: string }) => {
      const session = await openFaultSession(store, store.resolveName(opts.lab));
      const planned = await breakFault(session, fault, opts.node);
      const where = planned.nodes.length === 0 ? '' : ` on ${planned.nodes.join(', ')}`;
      out(`applied ${fault}${where} to lab ${session.plan.name}`);
      for (const s of planned.impact.mustFail) out(`  must fail: ${describeSelector(s)}`);
      for (const s of planned.impact.mayFail) out(`  may fail:  ${describeSelector(s)}`);
      out('`lab heal` reverts it');
    });

  program
    .command('heal')
    .description('revert every fault applied to the lab')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .action(async (opts: { lab?: string }) => {
      const session = await openFaultSession(store, store.resolveName(opts.lab));
      const healed = await healFaults(session);
      out(
        healed.length === 0
          ? `no faults applied to lab ${session.plan.name}`
          : `healed ${healed.map((h) => h.fault).join(', ')} on lab ${session.plan.name}`,
      );
    });
}
