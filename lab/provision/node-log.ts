/** Per-node provisioning logs (`.lab/<name>/logs/provision/<node>.log`), redacted line by line. */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../exec/redactor.ts';

export class NodeLogs {
  constructor(
    /** The folder of the per-node files. */
    readonly dir: string,
    private readonly redactor: Redactor,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  file(node: string): string {
    return join(this.dir, `${node}.log`);
  }

  /** Appends text (any number of lines) to the node's log, each line stamped and redacted. */
  write(node: string, step: string, text: string): void {
    const stamp = new Date().toISOString();
    const lines = this.redactor
      .redact(text)
      .trimEnd()
      .split('\n')
      .map((line) => `${stamp} [${step}] ${line}\n`)
      .join('');
    appendFileSync(this.file(node), lines, { mode: 0o600 });
  }
}
