/** Test support: a fake of client-node's Exec that connects at once and sends its status frame later. */
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import type { ExecClient, ExecSocket } from '../drivers/kubernetes/kube-clients.ts';

export interface ExecScript {
  stdout?: string;
  stderr?: string;
  /** Omitted: the socket closes without a status frame. */
  status?: V1Status;
  /** Milliseconds after connect before output and status arrive. */
  delayMs?: number;
  /** Never answer (the caller's timeout must fire). */
  hang?: boolean;
  /** exec() itself rejects (e.g. 403 from the API server). */
  connectError?: Error;
}

export interface ExecCall {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
}

class FakeSocket extends EventEmitter implements ExecSocket {
  closed = false;
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}

/** client-node Exec fake: connects at once, then (after delayMs) writes output and the status frame. */
export class FakeExec implements ExecClient {
  readonly calls: ExecCall[] = [];
  readonly sockets: FakeSocket[] = [];
  connected = 0;

  constructor(private readonly script: (call: ExecCall) => ExecScript) {}

  exec(
    namespace: string,
    pod: string,
    container: string,
    command: string | string[],
    stdout: Writable | null,
    stderr: Writable | null,
    _stdin: Readable | null,
    _tty: boolean,
    statusCallback?: (status: V1Status) => void,
  ): Promise<ExecSocket> {
    const call = { namespace, pod, container, command: [command].flat() };
    this.calls.push(call);
    const answer = this.script(call);
    if (answer.connectError !== undefined) return Promise.reject(answer.connectError);
    const socket = new FakeSocket();
    this.sockets.push(socket);
    this.connected++;
    if (answer.hang !== true) {
      setTimeout(() => {
        if (socket.closed) return;
        if (answer.stdout !== undefined) stdout?.write(Buffer.from(answer.stdout));
        if (answer.stderr !== undefined) stderr?.write(Buffer.from(answer.stderr));
        if (answer.status !== undefined) {
          // As client-node does on the status channel: end both streams, then report.
          stdout?.end();
          stderr?.end();
          statusCallback?.(answer.status);
        }
        socket.close();
      }, answer.delayMs ?? 1);
    }
    return Promise.resolve(socket);
  }
}
