/**
 * The emulated labs' stand-in for the API server at the kubernetes Service's endpoint: a TLS
 * server on the control plane's address and port, with a self-signed certificate made at lab up
 * (openssl on this host; the key stays mode 0600). Not kube-apiserver: it answers 403 to every
 * request, saying so.
 */
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../errors.ts';
import type { LabPlan, PlannedNode } from '../plan/lab-plan.ts';
import type { EmulatedCluster } from './emulated-cluster.ts';
import { READY_LINE, apiServerStandInArgv } from './runtime/workload-programs.ts';

/** The names and addresses the certificate holds: those clients in the cluster reach it by. */
export function apiServerNames(plan: LabPlan, cp: PlannedNode): string[] {
  const domain = plan.kubernetes.dnsDomain;
  return [
    `IP:${plan.kubernetes.apiServiceIP}`,
    `IP:${cp.ip}`,
    ...['kubernetes', 'kubernetes.default', 'kubernetes.default.svc'].map((n) => `DNS:${n}`),
    `DNS:kubernetes.default.svc.${domain}`,
  ];
}

/**
 * `openssl req` arguments for a self-signed certificate into `dir`: ECDSA P-256, which openssl
 * makes in milliseconds where RSA 2048 (kubeadm's) takes most of a second of lab up.
 */
export function certificateArgs(plan: LabPlan, cp: PlannedNode, dir: string): string[] {
  return [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '365',
    '-subj',
    '/CN=kube-apiserver (hybrid-lab emulated stand-in)',
    '-addext',
    `subjectAltName=${apiServerNames(plan, cp).join(',')}`,
    '-keyout',
    join(dir, 'tls.key'),
    '-out',
    join(dir, 'tls.crt'),
  ];
}

/**
 * Makes the certificate, puts it where the programs of `cp` (the control plane) run, and starts
 * the server on its own network; returns its pid.
 */
export async function startApiServerStandIn(
  cluster: EmulatedCluster,
  cp: PlannedNode,
): Promise<number> {
  const { plan, hosts } = cluster;
  const made = join(cluster.dir, 'apiserver');
  mkdirSync(made, { recursive: true, mode: 0o700 });
  const openssl = await hosts.outside.runtime.exec(undefined, [
    'openssl',
    ...certificateArgs(plan, cp, made),
  ]);
  if (openssl.exitCode !== 0) {
    throw new ProviderError(`openssl could not make the API server stand-in's certificate`, {
      hint: `${openssl.stderr.trim().slice(-300)} (apt-get install openssl)`,
    });
  }
  chmodSync(join(made, 'tls.key'), 0o600);
  const runtime = hosts.pods(cp.name);
  const dir = runtime.dataDir === undefined ? made : join(runtime.dataDir, 'apiserver');
  if (runtime.dataDir !== undefined) {
    // Another machine (a VM): copied there, the key written under umask 077.
    for (const file of ['tls.crt', 'tls.key']) {
      const copied = await runtime.exec(
        undefined,
        ['sh', '-c', 'umask 077 && mkdir -p "$1" && cat > "$2"', 'sh', dir, join(dir, file)],
        { input: readFileSync(join(made, file), 'utf8') },
      );
      if (copied.exitCode !== 0)
        throw new ProviderError(
          `node ${cp.name}: cannot write ${join(dir, file)}: ${copied.stderr}`,
        );
    }
  }
  const tls = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  const { pid } = await runtime.start(
    hosts.nodeNetns(cp.name),
    apiServerStandInArgv(tls, plan.kubernetes.apiServerPort, runtime.workloads),
    join(runtime.dataDir ?? cluster.dir, 'logs', 'apiserver-standin.log'),
    READY_LINE,
  );
  return pid;
}
