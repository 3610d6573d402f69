/** Benchmarks of lab bring-up and tear-down (netns), measured through the real lifecycle. */
import { spawnSync } from 'node:child_process';
import { labDown, labUp } from '../../lab/lifecycle/lab-lifecycle.ts';
import { quietProgress } from '../../lab/log/progress.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { expandShorthand } from '../../lab/spec/shorthand.ts';
import type { LabStore } from '../../lab/state/lab-store.ts';

export interface LifecycleFigures {
  label: string;
  nodes: number;
  upMs: number[];
  downMs: number[];
  medianUpMs: number;
  medianDownMs: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Brings a shorthand lab (renamed so it never collides with a user's lab) up and down `reps` times. */
export async function benchLifecycle(
  store: LabStore,
  label: string,
  shorthand: string,
  reps: number,
): Promise<LifecycleFigures> {
  const data = { ...expandShorthand(shorthand), name: label };
  const loaded = { spec: validateSpec(data, label), source: label, text: JSON.stringify(data) };
  const upMs: number[] = [];
  const downMs: number[] = [];
  for (let i = 0; i < reps; i++) {
    let started = performance.now();
    await labUp(loaded, { store, progress: quietProgress });
    upMs.push(Math.round(performance.now() - started));
    started = performance.now();
    await labDown(label, { store, progress: quietProgress });
    downMs.push(Math.round(performance.now() - started));
  }
  return {
    label,
    nodes: loaded.spec.nodes.length,
    upMs,
    downMs,
    medianUpMs: median(upMs),
    medianDownMs: median(downMs),
  };
}

/** Wall time of one CLI command as a user types it (`npm run lab:up -- …`), start-up included. */
export function timeCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { ms: number; exitCode: number } {
  const started = performance.now();
  const result = spawnSync(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
  return { ms: Math.round(performance.now() - started), exitCode: result.status ?? -1 };
}
