/** Where an emulated cluster's pieces run: each node's pods and wiring, and the outside world. */
import type { NodeShell } from '../remote/node-shell.ts';
import type { PodRuntime } from './runtime/pod-runtime.ts';

/** The hypervisor host / external world: NodePort probes from outside and the external echo. */
export interface OutsideHost {
  runtime: PodRuntime;
  /** Its network namespace on the runtime's machine; undefined: the machine itself. */
  netns?: string;
  /** The one address the external echo listens on; undefined: every address. */
  bind?: string;
}

export interface ClusterHosts {
  /** The container runtime of the machine that runs `node`'s pods. */
  pods(node: string): PodRuntime;
  /** Node-side wiring of `node` (CNI, iptables), as a provisioner runs it. */
  shell(node: string): NodeShell;
  /** `node`'s own network namespace on its pod runtime's machine; undefined: the machine itself (a VM). */
  nodeNetns(node: string): string | undefined;
  outside: OutsideHost;
}
