/**
 * The emulated cluster's objects, persisted as JSON under the lab's state dir so any process
 * (the CLI, the suite) can attach and change them; writers serialise on a lock file.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors.ts';
import { processAlive } from '../../exec/process-alive.ts';
import { pollFor } from '../../wait/poll.ts';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'Headless' | 'ExternalName';
export type Protocol = 'TCP' | 'UDP';

export interface ServicePort {
  name: string;
  port: number;
  targetPort: number;
  protocol: Protocol;
  /** Requested (or, once created, allocated) NodePort; NodePort services only. */
  nodePort?: number;
}

export interface ServiceSpec {
  name: string;
  namespace: string;
  type: ServiceType;
  selector: Record<string, string>;
  ports: ServicePort[];
  /**
   * NodePort and LoadBalancer Services: `Local` sends outside traffic only to endpoints on the
   * node it arrived at, keeping the client's address; a node without one does not forward it.
   * Default `Cluster`. A LoadBalancer Service with `Local` gets a health-check node port.
   */
  externalTrafficPolicy?: 'Cluster' | 'Local';
  /** `ClientIP`: a client's new connections go to the endpoint its last one went to. Default `None`. */
  sessionAffinity?: 'None' | 'ClientIP';
  /** sessionAffinityConfig.clientIP.timeoutSeconds: how long an idle client stays; default 10800. */
  affinityTimeoutSeconds?: number;
  /** `Local`: traffic from inside the cluster goes only to endpoints on its own node. Default `Cluster`. */
  internalTrafficPolicy?: 'Cluster' | 'Local';
  /** ExternalName Services: the name this Service's name is a CNAME of. */
  externalName?: string;
  /** Services without a selector: their Endpoints' addresses. */
  endpoints?: string[];
}

export interface ServiceRecord extends ServiceSpec {
  /** Absent for headless services. */
  clusterIP?: string;
  /** Created by the lab itself (kubernetes, kube-dns); user calls cannot delete it. */
  system?: boolean;
  /** Endpoints that are not pods (the API server's node address, a selector-less Service's). */
  staticEndpoints?: string[];
  /** LoadBalancer Services with externalTrafficPolicy Local: where every node's kube-proxy reports its local endpoints. */
  healthCheckNodePort?: number;
}

/**
 * What a node's kube-proxy gets wrong (fault injection): ClientIP affinity programmed as None,
 * internalTrafficPolicy Local as Cluster, every endpoint counted as local in its health checks,
 * and a Service's ports keyed by number alone (the second protocol on a number is left out).
 */
export type KubeProxyQuirk =
  'ignores-affinity' | 'ignores-internal-policy' | 'counts-all-endpoints' | 'ports-by-number';

export interface PodSpec {
  name: string;
  namespace: string;
  /** Name of the plan node the pod runs on. */
  node: string;
  hostname?: string;
  /** With a headless Service of this name, gives `<hostname>.<subdomain>.<ns>.svc.<domain>`. */
  subdomain?: string;
  labels: Record<string, string>;
}

export type PodPhase = 'Pending' | 'Running' | 'Terminating';

export interface PodRecord extends PodSpec {
  ip: string;
  /** The pod's network namespace. */
  netns: string;
  phase: PodPhase;
  program: 'netexec' | 'dns';
  pid?: number;
  logFile: string;
  system?: boolean;
}

export interface ExternalEcho {
  address: string;
  httpPort: number;
  udpPort: number;
  pid?: number;
}

export interface ClusterState {
  format: 1;
  labId: string;
  pods: PodRecord[];
  services: ServiceRecord[];
  externalEcho: ExternalEcho;
  /**
   * Hash of what was last applied per node (iptables) and to the zone, to skip no-op syncs; per
   * node, the UDP Service flows its rules sent to each endpoint (see cluster-sync.ts).
   */
  applied: {
    rules: Record<string, string>;
    zone: string;
    udpFlows?: Record<string, string[]>;
    /** Per node, the hash of its health-check server's configuration. */
    health?: Record<string, string>;
  };
  /**
   * Per node, the nodes whose workload endpoints that node's kube-proxy leaves out of its Service
   * rules (a stale view: fault injection). Absent or empty: it programs every endpoint.
   */
  staleProxy?: Record<string, string[]>;
  /** Per node, the pid of the netexec on its own network (what a host-network pod runs). */
  hostNetexec?: Record<string, number>;
  /** Per node, the pid of its kube-proxy's health-check server (health-server.mjs). */
  healthServers?: Record<string, number>;
  /** The pid of the TLS server standing in for the API server at its endpoint (emulated). */
  apiServer?: number;
  /** Per node, what its kube-proxy gets wrong (fault injection). */
  proxyQuirks?: Record<string, KubeProxyQuirk[]>;
  /** Nodes whose pods the cluster DNS answers with an ExternalName's CNAME alone (fault injection). */
  bareCnameNodes?: string[];
  /**
   * Nodes whose kube-proxy programs externalTrafficPolicy Local as Cluster (fault injection):
   * every endpoint, and the client masqueraded to the node.
   */
  ignoresLocalPolicy?: string[];
  /**
   * Per node whose kube-proxy keeps every endpoint it once programmed (fault injection: stale
   * load-balancer rules after an endpoint left), those endpoints per Service (`namespace/name`).
   */
  keptEndpoints?: Record<string, Record<string, string[]>>;
}

const LOCK_TIMEOUT_MS = 30_000;
const LOCK_POLL_MS = 5;

export class ClusterStateStore {
  readonly file: string;
  readonly lockFile: string;

  /** `dir` is `<stateDir>/netns`. */
  constructor(readonly dir: string) {
    this.file = join(dir, 'cluster.json');
    this.lockFile = join(dir, 'cluster.lock');
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  read(): ClusterState {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      throw new ProviderError(`no emulated cluster state at ${this.file}`, {
        cause: error,
        hint: 'run `lab up` first',
      });
    }
    return JSON.parse(text) as ClusterState;
  }

  /** Writes atomically, so a reader never sees half a file. */
  write(state: ClusterState): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  /** Runs `change` on the current state under the lock and writes the result. */
  async update<T>(change: (state: ClusterState) => T | Promise<T>): Promise<T> {
    await this.lock();
    try {
      const state = this.read();
      const result = await change(state);
      this.write(state);
      return result;
    } finally {
      this.unlock();
    }
  }

  remove(): void {
    rmSync(this.file, { force: true });
    rmSync(this.lockFile, { force: true });
  }

  private async lock(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    let holder = '';
    await pollFor(
      `the cluster state lock ${this.lockFile}`,
      () => this.#tryLock((h) => (holder = h)),
      {
        timeoutMs: LOCK_TIMEOUT_MS,
        intervalMs: LOCK_POLL_MS,
        lastSeen: () => `held by pid ${holder}`,
      },
    );
  }

  /** Takes the lock if it is free or its holder died (crash, kill -9); reports the holder otherwise. */
  #tryLock(seen: (holder: string) => void): boolean {
    try {
      const fd = openSync(this.lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: string;
    try {
      holder = readFileSync(this.lockFile, 'utf8').trim();
    } catch {
      return false; // released in between: try again
    }
    seen(holder);
    const pid = Number(holder);
    const since = statSync(this.lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    const dead = holder === '' ? Date.now() - since > 2000 : !processAlive(pid);
    if (dead && pid !== process.pid) rmSync(this.lockFile, { force: true });
    return false;
  }

  private unlock(): void {
    try {
      unlinkSync(this.lockFile);
    } catch {
      // Already gone (a reaper removed the state dir): nothing to release.
    }
  }
}
