/**
 * The Windows CNI config "on disk" of each emulated Windows node. The emulation reads it back
 * on every sync, so an edited config (wrong ExceptionList) reproduces the real symptom.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { windowsCniConfig } from '../../cni/windows-cni-config.ts';
import { ProviderError } from '../../errors.ts';
import type { LabPlan, PlannedNode } from '../../plan/lab-plan.ts';

/** Where the netns lab keeps `node`'s config (the provisioner's C:\etc\cni\net.d\10-flannel.conf). */
export function windowsCniFile(stateDir: string, node: string): string {
  return join(stateDir, 'cni', `${node}.conf`);
}

export function writeWindowsCni(stateDir: string, node: string, config: unknown): void {
  const file = windowsCniFile(stateDir, node);
  mkdirSync(join(stateDir, 'cni'), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** Writes the generated config for every Windows node of the plan. */
export function writeGeneratedWindowsCni(stateDir: string, plan: LabPlan): void {
  for (const node of plan.nodes.filter((n) => n.os === 'windows')) {
    writeWindowsCni(stateDir, node.name, windowsCniConfig(plan, node));
  }
}

export function readWindowsCni(stateDir: string, node: PlannedNode): unknown {
  const file = windowsCniFile(stateDir, node.name);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new ProviderError(`node ${node.name}: cannot read its Windows CNI config ${file}`, {
      cause: error,
      hint: 'restore it with setWindowsCniConfig, or bring the lab down and up again',
    });
  }
}
