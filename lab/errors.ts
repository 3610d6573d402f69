/** Typed errors: each says what failed, where, and what to do next. */

export class LabError extends Error {
  override readonly name: string = 'LabError';
  /** What the user can do about it, printed under the message. */
  readonly hint: string | undefined;
  constructor(message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options?.hint;
  }
}

/** An error's message, and its hint (a LabError's, or any error's `hint`) on a line of its own. */
export function messageWithHint(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const hint = (error as { hint?: unknown } | undefined)?.hint;
  return typeof hint === 'string' && hint !== '' ? `${message}\nhint: ${hint}` : message;
}

export interface SpecIssue {
  /** Field path such as `nodes[2].os`; empty for the document itself. */
  path: string;
  message: string;
}

/** A spec (or the plan derived from it) is invalid; nothing has been created. */
export class LabSpecError extends LabError {
  override readonly name = 'LabSpecError';
  readonly issues: readonly SpecIssue[];
  constructor(source: string, issues: readonly SpecIssue[]) {
    super(
      `invalid lab spec ${source}:\n` +
        issues.map((i) => `  ${i.path === '' ? '(document)' : i.path}: ${i.message}`).join('\n'),
    );
    this.issues = issues;
  }
}

/** An external command failed or timed out. */
export class CommandError extends LabError {
  override readonly name = 'CommandError';
  /** The node the command ran on, when it ran on one. */
  readonly node: string | undefined;
  constructor(
    readonly command: string,
    readonly exitCode: number,
    readonly output: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown; node?: string },
  ) {
    const where = options?.node === undefined ? '' : ` on ${options.node}`;
    const what = timedOut ? 'timed out' : `exited ${exitCode}`;
    const tail = output.trim().split('\n').slice(-15).join('\n');
    super(`command${where} ${what}: ${command}${tail === '' ? '' : `\n${tail}`}`, options);
    this.node = options?.node;
  }

  /** `error` said of `node`: a CommandError gains the node's name, anything else passes through. */
  static onNode(error: unknown, node: string): unknown {
    if (!(error instanceof CommandError) || error.node !== undefined) return error;
    return new CommandError(error.command, error.exitCode, error.output, error.timedOut, {
      cause: error,
      node,
    });
  }
}

/** A provider could not create, inspect or remove what it owns. */
export class ProviderError extends LabError {
  override readonly name = 'ProviderError';
}

/** A wait ran out of time. */
export class WaitTimeoutError extends LabError {
  override readonly name = 'WaitTimeoutError';
  constructor(what: string, timeoutMs: number, lastError: unknown) {
    const last =
      lastError instanceof Error ? lastError.message : JSON.stringify(lastError ?? 'none');
    super(`timed out after ${timeoutMs} ms waiting for ${what}; last error: ${last}`, {
      cause: lastError,
    });
  }
}

/** Something this machine lacks for a plan, found before anything is created. */
export interface PreflightProblem {
  /** What is missing or wrong, in one line. */
  what: string;
  /** How to fix it. */
  fix: string;
}
