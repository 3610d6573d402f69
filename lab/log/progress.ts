/** Progress of long steps: a listr2 task list on a TTY, plain timestamped lines otherwise. */
import { Listr } from 'listr2';
import type { Logger } from './logger.ts';

export interface Progress {
  /** Runs one step, showing its title while it runs and its outcome after. */
  step<T>(title: string, run: () => Promise<T>): Promise<T>;
  /** Runs steps at once (e.g. one per hypervisor); fails with the first error after all settle. */
  parallel(steps: { title: string; run: () => Promise<void> }[]): Promise<void>;
  /** A line of information. */
  info(message: string): void;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 19);
}

/** For CI and pipes: one line when a step starts and one when it ends. */
export class PlainProgress implements Progress {
  constructor(
    private readonly log: Logger,
    private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    private readonly label = '',
  ) {}

  async step<T>(title: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    this.write(`${stamp()} ${this.label}${title} ...`);
    this.log.info({ step: title }, 'step started');
    try {
      const result = await run();
      const ms = Math.round(performance.now() - started);
      this.write(`${stamp()} ${this.label}${title}: done (${ms} ms)`);
      this.log.info({ step: title, ms }, 'step done');
      return result;
    } catch (error) {
      this.write(`${stamp()} ${this.label}${title}: FAILED`);
      this.log.error({ step: title, err: error }, 'step failed');
      throw error;
    }
  }

  async parallel(steps: { title: string; run: () => Promise<void> }[]): Promise<void> {
    const results = await Promise.allSettled(steps.map((s) => this.step(s.title, s.run)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  info(message: string): void {
    this.write(`${stamp()} ${this.label}${message}`);
    this.log.info(message);
  }
}

/** For a terminal: listr2's live task list. */
export class ListrProgress implements Progress {
  constructor(
    private readonly log: Logger,
    private readonly label = '',
  ) {}

  async step<T>(title: string, run: () => Promise<T>): Promise<T> {
    let result: T | undefined;
    await this.parallel([
      {
        title,
        run: async () => {
          result = await run();
        },
      },
    ]);
    return result as T;
  }

  async parallel(steps: { title: string; run: () => Promise<void> }[]): Promise<void> {
    const plain = new PlainProgress(this.log, () => undefined);
    const errors: unknown[] = [];
    const tasks = steps.map((s) => ({
      title: `${this.label}${s.title}`,
      task: async () => {
        try {
          await plain.step(s.title, s.run);
        } catch (error) {
          errors.push(error);
          throw error;
        }
      },
    }));
    await new Listr(tasks, {
      concurrent: true,
      exitOnError: false,
      rendererOptions: { collapseErrors: false },
    }).run();
    if (errors.length > 0) throw errors[0];
  }

  info(message: string): void {
    process.stderr.write(`${this.label}${message}\n`);
    this.log.info(message);
  }
}

export function progressFor(log: Logger, label: string, tty = process.stderr.isTTY): Progress {
  return tty && process.env.CI !== 'true'
    ? new ListrProgress(log, label)
    : new PlainProgress(log, undefined, label);
}

/** Progress that goes to the log only, for callers that report their own steps. */
export function quietProgress(log: Logger): Progress {
  return new PlainProgress(log, () => undefined);
}
