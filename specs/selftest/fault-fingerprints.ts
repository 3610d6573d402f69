/**
 * One short hash per catalogue fault of everything the self-test judges it by: its entry (scope,
 * requirements, witness), the actions it takes and the cells it must and may fail on each node the
 * self-test runs it on in the default lab, and the code that makes and undoes each of its action
 * kinds. Kept in fault-fingerprints.json (a unit test keeps the file current), so CI can tell
 * which faults a change touched by comparing the file with the merge base's: `git show`, no build.
 *
 *   tsx specs/selftest/fault-fingerprints.ts --write   writes the file again
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAULT_CATALOGUE } from '../../lab/faults/fault-catalogue.ts';
import type { FaultDefinition } from '../../lab/faults/fault-definition.ts';
import { resolveTargets, selftestNodes } from '../../lab/faults/fault-targets.ts';
import type { LabPlan } from '../../lab/plan/lab-plan.ts';
import { planLab } from '../../lab/plan/plan-lab.ts';
import { join } from 'node:path';
import { DEFAULT_PRESET, loadSpec, PRESETS_DIR } from '../../lab/spec/load-spec.ts';
import { expandCells } from '../matrix/expand-cells.ts';
import { PERF_MATRIX } from '../matrix/perf-cells.ts';
import { expectationOf } from './detection.ts';
import { suiteCells } from './suite-cells.ts';

export const FINGERPRINTS_FILE = 'specs/selftest/fault-fingerprints.json';
const ACTIONS_SOURCE = fileURLToPath(new URL('../../lab/faults/fault-actions.ts', import.meta.url));

/**
 * The lines of `source` from `case 'KIND':` to the next case of the same switch (or its end):
 * how one action kind is made or undone.
 */
export function caseBlocks(source: string, kind: string): string[] {
  const lines = source.split('\n');
  const blocks: string[] = [];
  lines.forEach((line, i) => {
    const head = /^(\s*)case '([\w-]+)':/.exec(line);
    if (head === null || head[2] !== kind) return;
    const indent = head[1]!;
    let end = i + 1;
    // Past any cases stacked on this one, to the next case or the switch's closing brace.
    while (end < lines.length && lines[end]!.startsWith(`${indent}case `)) end++;
    while (
      end < lines.length &&
      !lines[end]!.startsWith(`${indent}case `) &&
      !new RegExp(`^${indent.slice(2)}\\}`).test(lines[end]!)
    )
      end++;
    blocks.push(lines.slice(i, end).join('\n'));
  });
  return blocks;
}

/** The cells the fault's suite runs on `plan` that must and may fail with it on `targets`. */
function expectedCells(plan: LabPlan, fault: FaultDefinition, node: string | undefined) {
  const targets = resolveTargets(fault, plan, node);
  const impact = fault.impact(plan, targets);
  const cells =
    fault.witness === 'perf'
      ? expandCells(PERF_MATRIX, plan.nodes, { mode: 'ring', peers: 1, rotation: 0 }).filter(
          (c) => c.probe !== undefined,
        )
      : suiteCells(
          plan,
          fault.witness,
          targets.map((t) => t.name),
        );
  const of = (kind: string) =>
    cells.filter((c) => expectationOf(impact, c.meta) === kind).map((c) => c.meta.cell);
  return {
    actions: fault.actions(plan, targets),
    must: of('must-fail'),
    may: of('may-fail'),
    outcomes: impact.outcomes ?? null,
  };
}

/** Each fault's fingerprint on `plan` (the default lab), code of its actions read from `actions`. */
export function faultFingerprints(
  plan: LabPlan,
  actionsSource: string = readFileSync(ACTIONS_SOURCE, 'utf8'),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const fault of FAULT_CATALOGUE) {
    const runs = selftestNodes(fault, plan, 'ends').map((node) => ({
      node: node ?? null,
      ...expectedCells(plan, fault, node),
    }));
    const kinds = [...new Set(runs.flatMap((r) => r.actions.map((a) => a.kind)))].sort();
    const declared = {
      id: fault.id,
      witness: fault.witness ?? 'matrix',
      scope: fault.scope,
      requires: fault.requires,
      runs,
      code: kinds.map((k) => [k, caseBlocks(actionsSource, k)]),
    };
    out[fault.id] = createHash('sha256')
      .update(JSON.stringify(declared))
      .digest('hex')
      .slice(0, 16);
  }
  return out;
}

/** The default lab's plan, on which the fingerprints are taken. */
export function defaultPlan(): LabPlan {
  const { spec, source } = loadSpec(join(PRESETS_DIR, `${DEFAULT_PRESET}.yaml`), PRESETS_DIR);
  return planLab(spec, source);
}

/** The file's text for these fingerprints (sorted keys, one per line). */
export function fingerprintsText(prints: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(prints).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--write') {
  const file = fileURLToPath(new URL(`../../${FINGERPRINTS_FILE}`, import.meta.url));
  writeFileSync(file, fingerprintsText(faultFingerprints(defaultPlan())));
  process.stdout.write(`wrote ${FINGERPRINTS_FILE}\n`);
}
