/**
 * The harness side of held-connection.sh (lab/cluster/workload): the command lines that hold a
 * connection in a pod and ask on it, and its one-line answers as probe replies.
 */
import { join } from 'node:path';
import { LOCAL_WORKLOADS, type ProbeReply, type WorkloadLocation } from './workload-programs.ts';

/** `hold DIR PROTO HOST PORT`: connects and prints `holding …` (ready) or `failed …`. */
export function holdArgv(
  dir: string,
  target: { kind: 'http' | 'udp'; host: string; port: number },
  at: WorkloadLocation = LOCAL_WORKLOADS,
): string[] {
  const proto = target.kind === 'http' ? 'tcp' : 'udp';
  return [
    'bash',
    join(at.dir, 'held-connection.sh'),
    'hold',
    dir,
    proto,
    target.host,
    String(target.port),
  ];
}

/** The holder's ready line (or the line saying it could not connect). */
export const HOLD_READY_LINE = /^(holding|failed) /;

/** Whole seconds for the script's timeouts, at least one. */
export function heldSeconds(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000));
}

/** `ask DIR SEQ SECONDS VERB ARG`: one request on the held connection. */
export function askArgv(
  dir: string,
  seq: number,
  timeoutMs: number,
  verb: 'http' | 'udp' | 'close',
  arg = '',
  at: WorkloadLocation = LOCAL_WORKLOADS,
): string[] {
  return [
    'bash',
    join(at.dir, 'held-connection.sh'),
    'ask',
    dir,
    String(seq),
    String(heldSeconds(timeoutMs)),
    verb,
    ...(arg === '' ? [] : [arg]),
  ];
}

/** An answer line (`ok BODY`, `timeout WHY`, `refused WHY`, `error WHY`) as a probe reply. */
export function heldReply(output: string): ProbeReply {
  const line = output.trim().split('\n').pop() ?? '';
  const space = line.indexOf(' ');
  const word = space === -1 ? line : line.slice(0, space);
  const rest = space === -1 ? '' : line.slice(space + 1);
  switch (word) {
    case 'ok':
      return { result: 'ok', body: rest };
    case 'timeout':
    case 'refused':
      return { result: word, error: rest };
    case 'error':
      return { result: 'error', error: rest };
    default:
      return {
        result: 'error',
        error: `the held connection answered no result: ${output.trim().slice(0, 300)}`,
      };
  }
}

/** The `failed …` line of a holder that could not connect, as a reply (refused, timeout, other). */
export function holdFailure(line: string): ProbeReply {
  const why = line.replace(/^failed /, '');
  if (/refused/i.test(why)) return { result: 'refused', error: why };
  if (/timed out/i.test(why)) return { result: 'timeout', error: why };
  if (/unreachable/i.test(why)) return { result: 'unreachable', error: why };
  return { result: 'error', error: why };
}
