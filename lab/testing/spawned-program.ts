/** Test support: a workload program spawned with node and read line by line. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A spawned workload program read line by line; `stop()` is idempotent. */
export class Program {
  readonly exited: Promise<number | null>;
  private readonly lines: AsyncIterator<string>;
  private stderr = '';

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stderr.setEncoding('utf8').on('data', (text: string) => (this.stderr += text));
    this.exited = once(child, 'exit').then(([code]) => code as number | null);
  }

  static start(script: URL, args: string[]): Program {
    return new Program(spawn(process.execPath, [fileURLToPath(script), ...args]));
  }

  async nextLine(): Promise<string> {
    const next = await this.lines.next();
    if (next.done === true) throw new Error(`exited before printing a line: ${this.stderr}`);
    return next.value;
  }

  async stderrAfterExit(): Promise<string> {
    await this.exited;
    return this.stderr;
  }

  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
