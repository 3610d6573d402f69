/** A provisioning step failed: names the node, the step, the command and the tail of its output. */
import { LabError } from '../errors.ts';

export interface ProvisionErrorContext {
  node: string;
  step: string;
  /** The command as run, redacted. */
  command?: string;
  /** The last lines of its output, redacted. */
  tail?: string;
  /** Attempts made (transient failures are retried). */
  attempts?: number;
  cause?: unknown;
  hint?: string;
}

export class ProvisionError extends LabError {
  override readonly name = 'ProvisionError';
  readonly node: string;
  readonly step: string;
  readonly command: string | undefined;
  readonly tail: string | undefined;

  constructor(message: string, context: ProvisionErrorContext) {
    const lines = [`${context.node}: step ${context.step}: ${message}`];
    if (context.command !== undefined) lines.push(`  command: ${context.command}`);
    if (context.attempts !== undefined && context.attempts > 1) {
      lines.push(`  attempts: ${context.attempts}`);
    }
    if (context.tail !== undefined && context.tail.trim() !== '') {
      lines.push(
        '  output (last lines):',
        ...context.tail
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`),
      );
    }
    super(lines.join('\n'), {
      ...(context.cause === undefined ? {} : { cause: context.cause }),
      ...(context.hint === undefined ? {} : { hint: context.hint }),
    });
    this.node = context.node;
    this.step = context.step;
    this.command = context.command;
    this.tail = context.tail;
  }
}

/** The last `lines` lines of some output. */
export function tailOf(output: string, lines = 20): string {
  return output.trimEnd().split('\n').slice(-lines).join('\n');
}
