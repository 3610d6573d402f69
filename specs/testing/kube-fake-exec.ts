/**
 * Test support: a fake of client-node's Exec that connects at once and answers later, either with
 * recorded websocket frames (kube-recorded-objects.ts: replay()) handled as client-node handles
 * them, or with output and a status given by the test.
 */
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import type { ExecClient, ExecSocket } from '../drivers/kubernetes/kube-clients.ts';
import type { RecordedFrame } from './kube-recording-format.ts';

export interface ExecScript {
  /** Frames the API server sent (channel 1 stdout, 2 stderr, 3 status), replayed in order. */
  frames?: RecordedFrame[];
  stdout?: string;
  stderr?: string;
  /** Omitted (and no status frame): the socket closes without a status. */
  status?: V1Status;
  /** Milliseconds after connect before output and status arrive. */
  delayMs?: number;
  /** Never answer (the caller's timeout must fire). */
  hang?: boolean;
  /** exec() itself rejects with this (client-node rejects with ws's ErrorEvent, not an Error). */
  connectError?: unknown;
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

/** What client-node's exec does with one frame (WebSocketHandler.handleStandardStreams); false: stop. */
function deliver(
  frame: RecordedFrame,
  stdout: Writable | null,
  stderr: Writable | null,
  statusCallback?: (status: V1Status) => void,
): boolean {
  if (frame.text.length === 0) return true;
  if (frame.channel === 1) stdout?.write(Buffer.from(frame.text));
  else if (frame.channel === 2) stderr?.write(Buffer.from(frame.text));
  else if (frame.channel === 3) {
    stdout?.end();
    stderr?.end();
    statusCallback?.(JSON.parse(frame.text) as V1Status);
    return false;
  }
  return true;
}

/** client-node Exec fake: connects at once, then (after delayMs) sends the frames or output and status. */
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
    if (answer.connectError !== undefined) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as client-node does (ws's ErrorEvent)
      return Promise.reject(answer.connectError);
    }
    const socket = new FakeSocket();
    this.sockets.push(socket);
    this.connected++;
    if (answer.hang !== true) {
      setTimeout(() => {
        if (socket.closed) return;
        const frames: RecordedFrame[] = answer.frames ?? [
          { channel: 1, text: answer.stdout ?? '' },
          { channel: 2, text: answer.stderr ?? '' },
          ...(answer.status === undefined
            ? []
            : [{ channel: 3, text: JSON.stringify(answer.status) }]),
        ];
        for (const frame of frames) {
          if (!deliver(frame, stdout, stderr, statusCallback)) break;
        }
        // The API server closes the connection once the command has exited.
        socket.close();
      }, answer.delayMs ?? 1);
    }
    return Promise.resolve(socket);
  }
}
