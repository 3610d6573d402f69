/** A CommandRunner for unit tests: records every call and answers from scripted rules. */
import { CommandError } from '../errors.ts';
import type {
  BackgroundProcess,
  CommandRunner,
  RunOptions,
  RunResult,
} from '../exec/command-runner.ts';
import { Redactor } from '../exec/redactor.ts';

export interface RecordedCall {
  file: string;
  args: string[];
  /** The argv joined with spaces, unredacted, for easy matching in tests. */
  line: string;
  options: RunOptions;
}

type Answer = Partial<Pick<RunResult, 'exitCode' | 'stdout' | 'stderr'>>;

export class RecordingRunner implements CommandRunner {
  readonly calls: RecordedCall[] = [];
  readonly redactor = new Redactor();
  readonly #rules: { match: RegExp; answer: Answer | ((call: RecordedCall) => Answer) }[] = [];
  #nextPid = 1000;

  /** The first rule whose pattern matches the joined argv answers the call. */
  on(match: RegExp, answer: Answer | ((call: RecordedCall) => Answer)): this {
    this.#rules.push({ match, answer });
    return this;
  }

  addSecret(secret: string): void {
    this.redactor.add(secret);
  }

  run(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const call: RecordedCall = { file, args: [...args], line: [file, ...args].join(' '), options };
    this.calls.push(call);
    const rule = this.#rules.find((r) => r.match.test(call.line));
    const answer = typeof rule?.answer === 'function' ? rule.answer(call) : (rule?.answer ?? {});
    const result: RunResult = {
      command: this.redactor.formatArgv(file, args, options.secrets),
      exitCode: answer.exitCode ?? 0,
      stdout: answer.stdout ?? '',
      stderr: answer.stderr ?? '',
      durationMs: 0,
      timedOut: false,
    };
    if (result.exitCode !== 0 && options.check !== false) {
      return Promise.reject(
        new CommandError(result.command, result.exitCode, result.stderr, false),
      );
    }
    return Promise.resolve(result);
  }

  spawn(file: string, args: readonly string[]): Promise<BackgroundProcess> {
    const line = [file, ...args].join(' ');
    this.calls.push({ file, args: [...args], line, options: {} });
    const result: RunResult = {
      command: line,
      exitCode: 0,
      stdout: '',
      stderr: '',
      durationMs: 0,
      timedOut: false,
    };
    return Promise.resolve({
      pid: this.#nextPid++,
      exited: Promise.resolve(result),
      stop: () => Promise.resolve(),
    });
  }

  /** The joined argv of every call so far. */
  lines(): string[] {
    return this.calls.map((c) => c.line);
  }
}
