/**
 * Held connections on an emulated lab: held-connection.sh started in the pod's network namespace
 * (bash's /dev/tcp and /dev/udp), asked over its FIFO from the pod's machine.
 */
import { join } from 'node:path';
import type { EmulatedCluster } from '../../lab/cluster/emulated-cluster.ts';
import { heldDir } from '../../lab/cluster/dataplane/namespace-cleanup.ts';
import {
  HOLD_READY_LINE,
  askArgv,
  heldReply,
  holdArgv,
  holdFailure,
} from '../../lab/cluster/runtime/held-connection.ts';
import type { PodRuntime } from '../../lab/cluster/runtime/pod-runtime.ts';
import type { DeployedPod, ProbeReply } from '../model/lab-driver.ts';
import type { HeldConnections, HeldTarget } from '../model/over-time-driver.ts';

interface Holder {
  runtime: PodRuntime;
  dir: string;
  kind: HeldTarget['kind'];
  seq: number;
}

/** How long a holder may take to connect and say so. */
const CLOSE_MS = 2000;

export class EmulatedHeld implements HeldConnections {
  readonly #holders = new Map<string, Holder>();
  #next = 0;

  constructor(
    private readonly cluster: EmulatedCluster,
    private readonly namespace: () => string,
  ) {}

  /** Every pod of an emulated lab is a namespace of Linux, Windows-emulated ones too. */
  unsupported(): string | undefined {
    return undefined;
  }

  async open(
    pod: DeployedPod,
    target: HeldTarget,
    timeoutMs: number,
  ): Promise<{ id: string } | { failed: ProbeReply }> {
    const record = (await this.cluster.list()).pods.find(
      (p) => p.name === pod.name && p.namespace === this.namespace(),
    );
    if (record === undefined)
      return { failed: { result: 'error', error: `pod ${pod.name} is not running` } };
    const runtime = this.cluster.hosts.pods(record.node);
    const id = String(++this.#next);
    const dir = join(heldDir(record.netns), id);
    try {
      const { readyLine } = await runtime.start(
        record.netns,
        holdArgv(dir, target, runtime.workloads),
        `${dir}.log`,
        HOLD_READY_LINE,
      );
      if (readyLine.startsWith('failed')) return { failed: holdFailure(readyLine) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return {
        failed: { result: 'timeout', error: `no connection within ${timeoutMs} ms: ${why}` },
      };
    }
    this.#holders.set(id, { runtime, dir, kind: target.kind, seq: 0 });
    return { id };
  }

  async ask(id: string, question: string, timeoutMs: number): Promise<ProbeReply> {
    const holder = this.#holders.get(id);
    if (holder === undefined) return { result: 'error', error: `no held connection ${id}` };
    const argv = askArgv(
      holder.dir,
      ++holder.seq,
      timeoutMs,
      holder.kind,
      question,
      holder.runtime.workloads,
    );
    const result = await holder.runtime.exec(undefined, argv, { timeoutMs: timeoutMs + 10_000 });
    return heldReply(result.stdout);
  }

  async close(id: string): Promise<void> {
    const holder = this.#holders.get(id);
    if (holder === undefined) return;
    this.#holders.delete(id);
    const { runtime, dir } = holder;
    await runtime.exec(
      undefined,
      askArgv(dir, ++holder.seq, CLOSE_MS, 'close', '', runtime.workloads),
    );
    await runtime.exec(undefined, ['rm', '-rf', dir, `${dir}.log`]);
  }
}
