/**
 * Held connections in agnhost pods of a real cluster: held-connection.sh (lab/cluster/workload)
 * written into the Linux container and started there in the background by one exec, asked by
 * later ones. The project's agnhost image is Debian with bash and coreutils (timeout, dd), as
 * the suite's UDP sweeps rely on; the Windows agnhost image has neither.
 */
import { readFileSync } from 'node:fs';
import {
  HOLD_READY_LINE,
  heldReply,
  heldSeconds,
  holdFailure,
} from '../../../lab/cluster/runtime/held-connection.ts';
import { workloadPath } from '../../../lab/cluster/runtime/workload-programs.ts';
import type { DeployedPod, ProbeReply } from '../../model/lab-driver.ts';
import type { HeldConnections, HeldTarget } from '../../model/over-time-driver.ts';
import { ExecError, execInPod, type ExecTarget } from './exec-in-pod.ts';
import type { ExecClient } from './kube-clients.ts';
import { NETEXEC_CONTAINER } from './suite-manifests.ts';

/** Where a pod keeps its held connections. */
const HELD_DIR = '/tmp/hl-held';
/** How long a holder has to connect and say so. */
const HOLD_READY_S = 10;

/** Writes the script beside the holder's folder, starts it detached, prints its first line. */
const START = [
  'set -u',
  'script=$1 dir=$2',
  'shift 2',
  'mkdir -p "$dir"',
  'printf "%s" "$script" >"$dir.sh"',
  'nohup bash "$dir.sh" hold "$dir" "$@" >"$dir.log" 2>&1 </dev/null &',
  `for _ in $(seq 1 ${HOLD_READY_S * 10}); do`,
  '  line=$(grep -E "^(holding|failed) " "$dir.log" | head -n 1)',
  '  if [ -n "$line" ]; then echo "$line"; exit 0; fi',
  '  sleep 0.1',
  'done',
  `echo "failed the holder said nothing within ${HOLD_READY_S} s: $(tr '\\n' ' ' <"$dir.log")"`,
].join('\n');

/** Why a Windows pod holds nothing (the cited fact: what its image carries). */
export const WINDOWS_HOLDS_NOTHING =
  "the Windows agnhost image has no shell that holds a socket between execs (no bash, no /dev/tcp, no dd; its UDP client is netexec's /dial, one socket per datagram: docs/suite.md#udp)";

interface Holder {
  target: ExecTarget;
  dir: string;
  kind: HeldTarget['kind'];
  seq: number;
}

export class KubeHeld implements HeldConnections {
  readonly #holders = new Map<string, Holder>();
  readonly #script = readFileSync(workloadPath('held-connection.sh'), 'utf8');
  #next = 0;

  constructor(
    private readonly exec: ExecClient,
    private readonly namespace: () => string | undefined,
    /** Slack on top of a request's own timeout before its exec is abandoned. */
    private readonly graceMs = 10_000,
  ) {}

  unsupported(pod: DeployedPod): string | undefined {
    return pod.os === 'windows' ? WINDOWS_HOLDS_NOTHING : undefined;
  }

  async #run(target: ExecTarget, command: string[], timeoutMs: number): Promise<string> {
    const result = await execInPod(this.exec, target, command, timeoutMs + this.graceMs);
    return result.stdout;
  }

  /** A holder has HOLD_READY_S to connect, whatever the probe timeout. */
  async open(
    pod: DeployedPod,
    target: HeldTarget,
  ): Promise<{ id: string } | { failed: ProbeReply }> {
    const namespace = this.namespace();
    if (namespace === undefined)
      return { failed: { result: 'error', error: 'nothing is deployed' } };
    const exec = { namespace, pod: pod.name, container: NETEXEC_CONTAINER };
    const id = String(++this.#next);
    const dir = `${HELD_DIR}/${id}`;
    const proto = target.kind === 'http' ? 'tcp' : 'udp';
    let line: string;
    try {
      const out = await this.#run(
        exec,
        ['bash', '-c', START, 'start', this.#script, dir, proto, target.host, String(target.port)],
        HOLD_READY_S * 1000,
      );
      line = out.trim().split('\n').pop() ?? '';
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      return {
        failed: { result: error.kind === 'timeout' ? 'timeout' : 'error', error: error.message },
      };
    }
    if (!HOLD_READY_LINE.test(line))
      return { failed: { result: 'error', error: `the holder printed: ${line.slice(0, 300)}` } };
    if (line.startsWith('failed')) return { failed: holdFailure(line) };
    this.#holders.set(id, { target: exec, dir, kind: target.kind, seq: 0 });
    return { id };
  }

  async ask(id: string, question: string, timeoutMs: number): Promise<ProbeReply> {
    const holder = this.#holders.get(id);
    if (holder === undefined) return { result: 'error', error: `no held connection ${id}` };
    const seq = String(++holder.seq);
    const seconds = String(heldSeconds(timeoutMs));
    try {
      const out = await this.#run(
        holder.target,
        ['bash', `${holder.dir}.sh`, 'ask', holder.dir, seq, seconds, holder.kind, question],
        timeoutMs + 3000,
      );
      return heldReply(out);
    } catch (error) {
      if (!(error instanceof ExecError)) throw error;
      return { result: error.kind === 'timeout' ? 'timeout' : 'error', error: error.message };
    }
  }

  async close(id: string): Promise<void> {
    const holder = this.#holders.get(id);
    if (holder === undefined) return;
    this.#holders.delete(id);
    const { target, dir } = holder;
    const seq = String(++holder.seq);
    // A pod gone with its namespace holds nothing any more: nothing to close.
    await this.#run(
      target,
      [
        'sh',
        '-c',
        'bash "$1.sh" ask "$1" "$2" 2 close; rm -rf "$1" "$1.sh" "$1.log"',
        'close',
        dir,
        seq,
      ],
      5000,
    ).catch(() => undefined);
  }
}
