/** `npm run e2e` settings from its arguments and environment, checked before anything runs. */
import { parseArgs } from 'node:util';
import { LabError } from '../../lab/errors.ts';

/** The options `npm run e2e --` takes (node:util parseArgs config). */
export const E2E_ARGS = {
  options: {
    lab: { type: 'string' },
    /** ginkgo focus regular expression; replaces the catalogue's default. */
    focus: { type: 'string' },
    /** ginkgo skip regular expression; replaces the catalogue's left-out list ('' skips nothing). */
    skip: { type: 'string' },
    /** Parallel ginkgo nodes. */
    nodes: { type: 'string' },
    /** Only the specs the cross-check pairs with matrix rows (CI's short run). */
    'cross-checked': { type: 'boolean' },
  },
  allowPositionals: false,
} as const;

export const DEFAULT_E2E_NODES = 3;
export const DEFAULT_E2E_TIMEOUT_MS = 30 * 60_000;

export interface E2eSettings {
  lab?: string;
  focus?: string;
  skip?: string;
  crossChecked?: boolean;
  nodes: number;
  timeoutMs: number;
}

/** A bad argument or variable: names it and what it allows. */
export class E2eSettingsError extends LabError {
  override readonly name = 'E2eSettingsError';
}

function integer(value: string, what: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw new E2eSettingsError(
      `${what}: expected a whole number from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

function regex(value: string, what: string): string {
  try {
    new RegExp(value);
  } catch (error) {
    throw new E2eSettingsError(`${what}: not a regular expression: ${(error as Error).message}`);
  }
  return value;
}

/** Settings of this run; `--nodes` wins over E2E_NODES. */
export function e2eSettings(argv: readonly string[], env: NodeJS.ProcessEnv): E2eSettings {
  let values: ReturnType<typeof parseArgs<typeof E2E_ARGS>>['values'];
  try {
    values = parseArgs({ ...E2E_ARGS, args: [...argv] }).values;
  } catch (error) {
    throw new E2eSettingsError(`npm run e2e: ${(error as Error).message}`, {
      hint: 'usage: npm run e2e [-- --lab NAME] [--focus REGEX | --cross-checked] [--skip REGEX] [--nodes N]',
    });
  }
  const nodes = values.nodes ?? env.E2E_NODES;
  const timeout = env.E2E_TIMEOUT_MS;
  return {
    ...(values.lab === undefined ? {} : { lab: values.lab }),
    ...(values.focus === undefined ? {} : { focus: regex(values.focus, '--focus') }),
    ...(values.skip === undefined ? {} : { skip: regex(values.skip, '--skip') }),
    ...(values['cross-checked'] === true ? { crossChecked: true } : {}),
    nodes:
      nodes === undefined
        ? DEFAULT_E2E_NODES
        : integer(nodes, values.nodes === undefined ? 'E2E_NODES' : '--nodes', 1, 16),
    timeoutMs:
      timeout === undefined
        ? DEFAULT_E2E_TIMEOUT_MS
        : integer(timeout, 'E2E_TIMEOUT_MS', 60_000, 24 * 3_600_000),
  };
}
