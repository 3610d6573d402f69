/** Runs one command in a container over the exec websocket and waits for its exit status. */
import { Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import { LabError } from '../../../lab/errors.ts';
import { errorMessage, type ExecClient, type ExecSocket } from './kube-clients.ts';

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface ExecResult {
  /** The command's exit code; null when the API failed the exec without one (status.message says why). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  status: V1Status;
  /** Some output was dropped: a stream passed `maxOutputBytes` (absent: none). */
  truncated?: boolean;
}

/** The exec itself failed: no connection, the socket closed without a status, or no status in time. */
export class ExecError extends LabError {
  override readonly name = 'ExecError';
  constructor(
    readonly kind: 'connect' | 'closed' | 'timeout',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Output kept per stream by default; probes print a few lines, a runaway command must not fill memory. */
const MAX_OUTPUT_BYTES = 64 * 1024;

class Collector extends Writable {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  /** Output came past maxBytes and was dropped. */
  cut = false;

  constructor(private readonly maxBytes: number) {
    super();
    // client-node ends the stream on the status frame; a stray late frame must not crash the run.
    this.on('error', () => undefined);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error) => void): void {
    const kept = chunk.subarray(0, Math.max(0, this.maxBytes - this.#bytes));
    if (kept.length > 0) {
      this.#chunks.push(kept);
      this.#bytes += kept.length;
    }
    if (kept.length < chunk.length) this.cut = true;
    done();
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/** The exit code in an exec status: Success is 0, NonZeroExitCode carries it in details.causes. */
export function exitCodeOf(status: V1Status): number | null {
  if (status.status === 'Success') return 0;
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = Number(cause?.message);
    if (Number.isInteger(code)) return code;
  }
  return null;
}

/**
 * Runs `command` in the target container. client-node's exec() resolves as soon as the websocket
 * connects; this resolves only when the status frame arrives (the command has exited), and rejects
 * with ExecError when the socket fails, closes without a status, or `timeoutMs` passes. Each
 * stream keeps its first `maxOutputBytes`.
 */
export function execInPod(
  client: ExecClient,
  target: ExecTarget,
  command: readonly string[],
  timeoutMs: number,
  maxOutputBytes = MAX_OUTPUT_BYTES,
): Promise<ExecResult> {
  const stdout = new Collector(maxOutputBytes);
  const stderr = new Collector(maxOutputBytes);
  const where = `${target.namespace}/${target.pod}`;
  let socket: ExecSocket | undefined;
  let settled = false;
  return new Promise<ExecResult>((resolve, reject) => {
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.close();
      finish();
    };
    const timer = setTimeout(() => {
      settle(() => {
        reject(
          new ExecError('timeout', `exec in ${where} gave no exit status within ${timeoutMs} ms`),
        );
      });
    }, timeoutMs);
    const onStatus = (status: V1Status) => {
      // Let the stream writes queued before the status frame land first.
      setImmediate(() => {
        settle(() => {
          resolve({
            exitCode: exitCodeOf(status),
            stdout: stdout.text(),
            stderr: stderr.text(),
            status,
            truncated: stdout.cut || stderr.cut,
          });
        });
      });
    };
    client
      .exec(
        target.namespace,
        target.pod,
        target.container,
        [...command],
        stdout,
        stderr,
        null,
        false,
        onStatus,
      )
      .then(
        (ws) => {
          socket = ws;
          if (settled) ws.close();
          ws.on('error', (error) => {
            settle(() => {
              reject(
                new ExecError('closed', `exec in ${where} failed: ${error.message}`, {
                  cause: error,
                }),
              );
            });
          });
          ws.on('close', () => {
            // A status frame may still be in the setImmediate queue; give it that turn.
            setImmediate(() => {
              settle(() => {
                reject(new ExecError('closed', `exec in ${where} closed without an exit status`));
              });
            });
          });
        },
        (error: unknown) => {
          settle(() => {
            reject(
              new ExecError('connect', `exec in ${where} could not start: ${errorMessage(error)}`, {
                cause: error,
              }),
            );
          });
        },
      );
  });
}
