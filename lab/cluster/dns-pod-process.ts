/**
 * The cluster DNS pod's server process, stopped and started again by fault injection. Goes
 * through the pod runtime of the DNS pod's node, so it works wherever that runtime runs.
 */
import { ProviderError } from '../errors.ts';
import { pollFor } from '../wait/poll.ts';
import { dnsPod, zoneFileOn } from './cluster-sync.ts';
import type { PodRecord } from './control/cluster-state.ts';
import type { EmulatedCluster } from './emulated-cluster.ts';
import type { PodRuntime } from './runtime/pod-runtime.ts';
import { READY_LINE, dnsServerArgv } from './runtime/workload-programs.ts';

const STOP_TIMEOUT_MS = 5000;

export class DnsPodProcess {
  constructor(private readonly cluster: EmulatedCluster) {}

  #pod(): PodRecord {
    const pod = dnsPod(this.cluster.store.read());
    if (pod === undefined) {
      throw new ProviderError(`lab ${this.cluster.plan.id} has no cluster DNS pod`, {
        hint: 'bring the lab down and up again',
      });
    }
    return pod;
  }

  #runtime(pod: PodRecord): PodRuntime {
    return this.cluster.hosts.pods(pod.node);
  }

  /** Whether pid runs on the pod's machine (a zombie does not). */
  async #alive(pod: PodRecord, pid = pod.pid): Promise<boolean> {
    if (pid === undefined) return false;
    const ps = await this.#runtime(pod).exec(undefined, ['ps', '-o', 'stat=', '-p', String(pid)]);
    return ps.exitCode === 0 && !ps.stdout.trim().startsWith('Z');
  }

  running(): Promise<boolean> {
    return this.#alive(this.#pod());
  }

  /** SIGKILL, as a crash would; the zone sync skips a server that is not running, so nothing waits on it. */
  async stop(): Promise<void> {
    const pod = this.#pod();
    if (!(await this.#alive(pod))) return;
    await this.#runtime(pod).exec(undefined, ['kill', '-KILL', String(pod.pid)], { check: true });
    await pollFor(`DNS server pid ${pod.pid} to exit`, async () => !(await this.#alive(pod)), {
      timeoutMs: STOP_TIMEOUT_MS,
      intervalMs: 20,
      lastSeen: () => 'still running',
    });
  }

  /** Starts the server on the current zone under the state lock, so no zone change slips past it. */
  async start(): Promise<void> {
    await this.cluster.store.update(async (state) => {
      const pod = dnsPod(state);
      if (pod === undefined)
        throw new ProviderError(`lab ${this.cluster.plan.id} has no cluster DNS pod`);
      if (await this.#alive(pod)) return;
      const runtime = this.#runtime(pod);
      const argv = dnsServerArgv(zoneFileOn(runtime, this.cluster.dir), pod.ip, runtime.workloads);
      const { pid } = await runtime.start(pod.netns, argv, pod.logFile, READY_LINE);
      pod.pid = pid;
    });
  }
}
