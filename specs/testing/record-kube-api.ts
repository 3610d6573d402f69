/**
 * Records what a live API server answers to the Kubernetes driver's own client calls, for the
 * unit tests' fakes (kube-recorded-objects.ts reads the files):
 *
 *   AGNHOST_IMAGE=hybrid-lab/agnhost:2.25 npx tsx specs/testing/record-kube-api.ts KUBECONFIG OUTDIR
 *
 * The clients are the driver's (kube-clients.ts: makeClients, so CoreV1Api, VersionApi, Exec) with
 * a tap that keeps every call and its answer, and the driver's code calls them: discoverCluster,
 * SuiteDeployment (creates, the Ready wait, the Service reads, the delete and the wait for the
 * namespace to go), execInPod with probeCommand's argv. The calls the driver never makes on its
 * own (a second create, reads of missing objects, invalid objects, failing pods, a cordon) go
 * through the same clients. AGNHOST_IMAGE names an image the nodes already hold.
 *
 * It creates the namespaces hybrid-lab-recorded and hybrid-lab-recorded-failing and deletes them,
 * and cordons the last worker for a few seconds (uncordoned again, also on failure). It writes
 * `kube-api-<gitVersion>.<topic>.json` and a README into OUTDIR, after checking that no credential
 * of the kubeconfig (client key, certificate, token) appears in them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiException,
  CoreV1Api,
  Exec,
  PatchStrategy,
  setHeaderOptions,
  V1PodSecurityContext,
  V1Sysctl,
  type KubeConfig,
  type V1PodList,
} from '@kubernetes/client-node';
import { format, resolveConfig } from 'prettier';
import { silentLogger } from '../../lab/log/logger.ts';
import { runNamespace, type RunStamp } from '../../lab/contracts/kubernetes-names.ts';
import type { ProbeRequest } from '../model/lab-driver.ts';
import { backsLocalService, hostNetworkPod, podNames } from '../model/workload-names.ts';
import { probeCommand } from '../drivers/kubernetes/agnhost-probe.ts';
import { discoverCluster, type ClusterFacts } from '../drivers/kubernetes/cluster-discovery.ts';
import { ExecError, execInPod } from '../drivers/kubernetes/exec-in-pod.ts';
import {
  loadKubeConfig,
  makeClients,
  type CoreClient,
  type ExecClient,
} from '../drivers/kubernetes/kube-clients.ts';
import { forNamespaceGone } from '../drivers/kubernetes/pod-waits.ts';
import { SuiteDeployment } from '../drivers/kubernetes/suite-deployment.ts';
import {
  NETEXEC_CONTAINER,
  renderSuiteManifests,
  type SuiteManifests,
} from '../drivers/kubernetes/suite-manifests.ts';
import {
  recordingFile,
  TOPICS,
  type Exchange,
  type ExecRun,
  type PodStatusSteps,
  type PollStep,
  type RecordedApiError,
  type RecordedFrame,
  type RecordedOtherError,
  type Recordings,
} from './kube-recording-format.ts';

const RUN_ID = 'recorded';
const LAB = 'recorder';
/** The run namespace's owner stamp: the recorder's, not the user's or the machine's names. */
const STAMP: RunStamp = {
  owner: 'recorder',
  host: 'recorder',
  startedAt: new Date().toISOString(),
  pid: process.pid,
};
const POLL_MS = 250;

/** Milliseconds since the last mark. */
class Clock {
  #start = performance.now();
  mark(): void {
    this.#start = performance.now();
  }
  now(): number {
    return Math.round(performance.now() - this.#start);
  }
}

/** A value as the JSON it serialises to (model objects: their fields; Dates: ISO text). */
function toJson(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

function errorRecord(error: unknown): RecordedApiError | RecordedOtherError {
  if (error instanceof ApiException) {
    const { code, body, headers } = error as ApiException<unknown>;
    const contentType = (headers as Record<string, string> | undefined)?.['content-type'];
    return {
      code,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: contentType === undefined ? {} : { 'content-type': contentType },
    };
  }
  const thrown = (error ?? {}) as { name?: unknown; message?: unknown; constructor?: unknown };
  const type =
    typeof thrown.constructor === 'function' ? (thrown.constructor as { name: string }).name : '';
  return {
    name: typeof thrown.name === 'string' ? thrown.name : type,
    message: typeof thrown.message === 'string' ? thrown.message : String(error),
    type: type === '' ? typeof error : type,
  };
}

/** Parameters as recorded: everything but the body (the manifest the driver rendered). */
function argsOf(param: unknown): Record<string, unknown> {
  if (typeof param !== 'object' || param === null) return {};
  return Object.fromEntries(Object.entries(param).filter(([key]) => key !== 'body'));
}

class Tape {
  readonly log: Exchange[] = [];
  readonly clock = new Clock();

  /** Runs one call, logs it with its answer or error, and passes both through. */
  async exchange<T>(call: string, param: unknown, run: () => Promise<T>): Promise<T> {
    const entry: Exchange = { call, args: argsOf(param), atMs: this.clock.now() };
    this.log.push(entry);
    try {
      const value = await run();
      entry.response = toJson(value);
      return value;
    } catch (error) {
      entry.error = errorRecord(error);
      throw error;
    }
  }

  /** Runs one taped call that may fail and returns its exchange either way (calls run one at a time). */
  async outcome(run: () => Promise<unknown>): Promise<Exchange> {
    const from = this.log.length;
    await run().catch(() => undefined);
    const exchange = this.log[from];
    if (exchange === undefined) throw new Error('the call went past the tape');
    return exchange;
  }

  /** The exchanges logged since `from` (an index into the log). */
  since(
    from: number,
    call: string,
    match: (args: Record<string, unknown>) => boolean = () => true,
  ) {
    return this.log.slice(from).filter((e) => e.call === call && match(e.args));
  }
}

/** The driver's CoreClient with every call going through the tape. */
function tapCore(real: CoreClient, tape: Tape): CoreClient {
  const wrap = <K extends keyof CoreClient>(name: K): CoreClient[K] => {
    const method = real[name] as unknown as (...params: unknown[]) => Promise<unknown>;
    const tapped = (...params: unknown[]) =>
      tape.exchange(name, params[0], () => method.apply(real, params));
    return tapped as unknown as CoreClient[K];
  };
  return {
    listNode: wrap('listNode'),
    createNamespace: wrap('createNamespace'),
    readNamespace: wrap('readNamespace'),
    deleteNamespace: wrap('deleteNamespace'),
    createNamespacedPod: wrap('createNamespacedPod'),
    deleteNamespacedPod: wrap('deleteNamespacedPod'),
    listNamespacedPod: wrap('listNamespacedPod'),
    listNamespacedEvent: wrap('listNamespacedEvent'),
    createNamespacedService: wrap('createNamespacedService'),
    readNamespacedService: wrap('readNamespacedService'),
    readNamespacedServiceAccount: wrap('readNamespacedServiceAccount'),
    readNamespacedEndpoints: wrap('readNamespacedEndpoints'),
    createNamespacedEndpoints: wrap('createNamespacedEndpoints'),
    readNamespacedSecret: wrap('readNamespacedSecret'),
    createNamespacedSecret: wrap('createNamespacedSecret'),
  };
}

type BinaryHandler = (channel: number, data: Buffer) => boolean;

/** client-node's Exec over its own websocket handler, keeping every frame the server sends. */
function tapExec(config: KubeConfig, session: { protocol: string; frames: RecordedFrame[] }) {
  const real = new Exec(config).handler;
  // The socket's type (isomorphic-ws) is not resolvable here; only its protocol is read.
  const connect = real.connect.bind(real) as unknown as (
    path: string,
    textHandler: ((text: string) => boolean) | null,
    binaryHandler: BinaryHandler,
  ) => Promise<{ protocol: string }>;
  const handler = {
    async connect(
      path: string,
      textHandler: ((text: string) => boolean) | null,
      binaryHandler: BinaryHandler | null,
    ) {
      const socket = await connect(path, textHandler, (channel, data) => {
        session.frames.push({ channel, text: data.toString('utf8') });
        return binaryHandler === null ? true : binaryHandler(channel, data);
      });
      session.protocol = socket.protocol;
      return socket;
    },
  };
  return new Exec(config, handler);
}

/** Consecutive equal values collapsed into one step with a poll count. */
function steps<T>(values: { atMs: number; value: T }[]): PollStep<T>[] {
  const out: PollStep<T>[] = [];
  for (const { atMs, value } of values) {
    const last = out.at(-1);
    if (last !== undefined && JSON.stringify(last.value) === JSON.stringify(value)) last.polls++;
    else out.push({ atMs, polls: 1, value });
  }
  return out;
}

/** Each pod's status per listNamespacedPod answer, a step per change. */
function podStatusSteps(polls: Exchange[]): PodStatusSteps {
  const answered = polls.filter((e) => e.response !== undefined);
  const pods: PodStatusSteps['pods'] = {};
  answered.forEach((exchange, poll) => {
    for (const pod of (exchange.response as V1PodList).items) {
      const name = pod.metadata?.name ?? '';
      const status: unknown = pod.status ?? {};
      const last = pods[name]?.at(-1);
      if (last !== undefined && JSON.stringify(last.status) === JSON.stringify(status))
        last.polls++;
      else (pods[name] ??= []).push({ poll, atMs: exchange.atMs, polls: 1, status });
    }
  });
  return { polls: answered.length, pods };
}

/** managedFields removed everywhere (the server-side-apply bookkeeping: large, read by nobody). */
function withoutManagedFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutManagedFields) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'managedFields')
      .map(([key, v]) => [key, withoutManagedFields(v)]),
  ) as T;
}

function trimExchange(exchange: Exchange, trim: (response: unknown) => unknown): Exchange {
  return exchange.response === undefined
    ? exchange
    : { ...exchange, response: trim(exchange.response) };
}

/** Nodes without status.images (every image on the node: long, read by nobody). */
function trimNodes(list: unknown): unknown {
  const nodes = withoutManagedFields(list) as { items: { status?: { images?: unknown } }[] };
  for (const node of nodes.items) delete node.status?.images;
  return nodes;
}

/** System pods cut to what discovery reads: names, labels, container images. */
function trimSystemPods(list: unknown): unknown {
  const { metadata, items } = list as V1PodList;
  return {
    metadata,
    items: items.map((p) => ({
      metadata: {
        name: p.metadata?.name,
        namespace: p.metadata?.namespace,
        labels: p.metadata?.labels,
      },
      spec: {
        nodeName: p.spec?.nodeName,
        containers: p.spec?.containers.map((c) => ({ name: c.name, image: c.image })),
      },
      status: { phase: p.status?.phase },
    })),
  };
}

async function recordCluster(
  tape: Tape,
  core: CoreClient,
  clients: ReturnType<typeof makeClients>,
) {
  tape.clock.mark();
  const from = tape.log.length;
  const facts = await discoverCluster(core, {
    getCode: () => tape.exchange('getCode', undefined, () => clients.version.getCode()),
  });
  const [version] = tape.since(from, 'getCode');
  const [nodes] = tape.since(from, 'listNode');
  const systemPods = tape.since(from, 'listNamespacedPod');
  return {
    facts,
    version: version!,
    nodes: trimExchange(nodes!, trimNodes),
    systemPods: systemPods.map((e) => trimExchange(e, trimSystemPods)),
  };
}

/** Cordons the last worker until the node controller has tainted it, records it, uncordons. */
async function recordCordon(api: CoreV1Api, tape: Tape, facts: ClusterFacts): Promise<Exchange> {
  const worker = facts.nodes.filter((n) => n.role === 'worker').at(-1)!.name;
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const patch = (unschedulable: boolean) =>
    api.patchNode({ name: worker, body: { spec: { unschedulable } } }, merge);
  await patch(true);
  try {
    for (let i = 0; ; i++) {
      tape.clock.mark();
      const node = await tape.exchange('readNode', { name: worker }, () =>
        api.readNode({ name: worker }),
      );
      const tainted = node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unschedulable');
      if (tainted === true || i >= 40) break;
      await sleep(POLL_MS);
    }
    const exchange = tape.log.at(-1)!;
    return trimExchange(exchange, (node) => trimNodes({ items: [node] }));
  } finally {
    await patch(false);
  }
}

/**
 * The 500 of a pod created in a namespace whose default service account has no token yet (before
 * 1.24): namespaces are made and a pod created in each at once, until one meets it. The pod is the
 * unschedulable one, so nothing starts; the namespaces are deleted and waited for.
 */
async function meetTooEarly(
  core: CoreClient,
  tape: Tape,
  manifests: SuiteManifests,
  say: (text: string) => void,
): Promise<Exchange> {
  const made: string[] = [];
  try {
    for (let i = 1; i <= 10; i++) {
      const body = structuredClone(manifests.namespace);
      const name = `${body.metadata!.name!}-early-${i}`;
      body.metadata!.name = name;
      await core.createNamespace({ body });
      made.push(name);
      const created = await tape.outcome(() =>
        core.createNamespacedPod({ namespace: name, body: manifests.pods[0]! }),
      );
      const error = created.error as RecordedApiError | undefined;
      if (error?.code === 500) return withoutManagedFields(created);
      if (error !== undefined) throw new Error(`create pod in ${name} failed: ${error.body}`);
      say(`pod created in ${name} without a 500; trying another namespace`);
    }
    throw new Error('no pod met the 500 of a namespace without its service-account token');
  } finally {
    for (const name of made) await core.deleteNamespace({ name }).catch(() => undefined);
    for (const name of made) {
      await forNamespaceGone(core, name, { timeoutMs: 180_000, pollMs: 1000 });
    }
  }
}

async function main(): Promise<void> {
  const [kubeconfigPath, outDir] = process.argv.slice(2);
  if (kubeconfigPath === undefined || outDir === undefined) {
    process.stderr.write(
      'usage: AGNHOST_IMAGE=IMAGE npx tsx specs/testing/record-kube-api.ts KUBECONFIG OUTDIR\n',
    );
    process.exit(2);
  }
  const image = process.env.AGNHOST_IMAGE?.trim();
  if (image === undefined || image === '') {
    process.stderr.write('AGNHOST_IMAGE must name an agnhost image the nodes hold\n');
    process.exit(2);
  }
  const config = loadKubeConfig(kubeconfigPath);
  const session = { protocol: '', frames: [] as RecordedFrame[] };
  const clients = makeClients(config, { exec: tapExec(config, session) });
  const tape = new Tape();
  const core = tapCore(clients.core, tape);
  // Calls the driver never makes (readNamespacedPod, the cordon) need the whole CoreV1Api.
  const api = config.makeApiClient(CoreV1Api);
  const namespace = runNamespace(RUN_ID);
  const failing = `${namespace}-failing`;
  const log = silentLogger();
  const say = (text: string) => process.stderr.write(`record-kube-api: ${text}\n`);

  const cluster = await recordCluster(tape, core, clients);
  const { facts } = cluster;
  say(`${facts.kubernetesVersion}, nodes ${facts.nodes.map((n) => n.name).join(', ')}`);
  const pods = podNames(facts.nodes).map(({ node, name }) => ({
    name,
    node,
    os: facts.nodes.find((n) => n.name === node)!.os,
    nodeHostname: facts.hostnames[node] ?? node,
    localBackend: backsLocalService(facts.nodes, node, name),
  }));
  const deployment = new SuiteDeployment(core, {
    namespace,
    runId: RUN_ID,
    lab: LAB,
    stamp: STAMP,
    churnOses: [],
    churnPods: [],
    images: { linux: image, windows: image },
    dnsDomain: 'cluster.local',
    pods,
    serviceOses: ['linux', 'windows'],
    hostNetwork: facts.nodes.map((n) => ({
      node: n.name,
      name: hostNetworkPod(n.name),
      nodeHostname: facts.hostnames[n.name] ?? n.name,
      os: n.os,
      address: n.ip,
    })),
    pullTimeoutMs: 600_000,
    say,
    outsideAddress: '192.0.2.2',
    // An echo "the lab runs": the recorder starts none.
    echo: { lab: { address: '192.0.2.1', port: 8099, hostname: 'external' } },
    // The cluster's version decides; the recordings are of v1.20.2, which has no such field.
    features: { internalLocal: false, affinityTimeoutSeconds: 10 },
    keepNamespace: false,
    log,
    podsReadyTimeoutMs: 180_000,
    namespaceGoneTimeoutMs: 180_000,
    pollMs: POLL_MS,
  });
  let failingCreated = false;
  try {
    // The suite's deploy, as a run does it.
    say(`deploying ${pods.length} pods into ${namespace}`);
    tape.clock.mark();
    const deployFrom = tape.log.length;
    const workloads = await deployment.start();
    // The fakes add a hand-written Windows node, win1: its hairpin Service (selecting no pod here).
    const [windowsHairpin] = renderSuiteManifests({
      namespace,
      runId: RUN_ID,
      lab: LAB,
      stamp: STAMP,
      images: { linux: image, windows: image },
      pods: [],
      serviceOses: [],
      hairpin: [{ node: 'win1', pod: 'netexec-win1-a' }],
      hostNetwork: [],
    }).hairpin;
    await core.createNamespacedService({ namespace, body: windowsHairpin! });
    const inNamespace = (args: Record<string, unknown>) => args.namespace === namespace;
    const [nsCreate] = tape.since(deployFrom, 'createNamespace');
    const serviceCreates = tape.since(deployFrom, 'createNamespacedService');
    const [podCreate] = tape.since(deployFrom, 'createNamespacedPod');
    const serviceAccount = tape
      .since(deployFrom, 'readNamespacedServiceAccount', inNamespace)
      .find((e) => e.response !== undefined);
    const untilReady = podStatusSteps(tape.since(deployFrom, 'listNamespacedPod', inNamespace));
    const serviceReads = tape.since(deployFrom, 'readNamespacedService', inNamespace);
    // Each Service's last Endpoints read of the deploy: every pod it selects ready in it.
    const endpointReads = tape.since(deployFrom, 'readNamespacedEndpoints', inNamespace);
    const endpoints = [...new Map(endpointReads.map((e) => [e.args.name, e])).values()];
    const [kubernetes] = tape.since(deployFrom, 'readNamespacedService', (a) => !inNamespace(a));
    say(`Ready after ${untilReady.polls} polls`);

    // Answers the driver meets when things go wrong.
    tape.clock.mark();
    const manifests = renderSuiteManifests({
      namespace,
      runId: RUN_ID,
      lab: LAB,
      stamp: STAMP,
      images: { linux: image, windows: image },
      pods,
      serviceOses: ['linux'],
      hairpin: [],
      hostNetwork: [],
    });
    const nsAgain = await tape.outcome(() => core.createNamespace({ body: manifests.namespace }));
    const nsMissing = await tape.outcome(() =>
      core.readNamespace({ name: `${namespace}-missing` }),
    );
    const serviceMissing = await tape.outcome(() =>
      core.readNamespacedService({ name: 'web-missing', namespace }),
    );
    const endpointsMissing = await tape.outcome(() =>
      core.readNamespacedEndpoints({ name: 'web-missing', namespace }),
    );
    const serviceAgain = await tape.outcome(() =>
      core.createNamespacedService({ namespace, body: manifests.services[1]! }),
    );
    const badService = structuredClone(manifests.services[1]!);
    badService.metadata!.name = 'web-invalid';
    badService.spec!.ports![0]!.nodePort = 99999;
    const serviceInvalid = await tape.outcome(() =>
      core.createNamespacedService({ namespace, body: badService }),
    );
    const missingPod = { name: 'netexec-missing', namespace };
    const podMissing = await tape.outcome(() =>
      tape.exchange('readNamespacedPod', missingPod, () => api.readNamespacedPod(missingPod)),
    );
    const podAgain = await tape.outcome(() =>
      core.createNamespacedPod({ namespace, body: manifests.pods[0]! }),
    );
    // The service-account admission as it refuses a pod whose account does not exist (yet).
    const missingAccount = 'default-missing';
    const serviceAccountMissing = await tape.outcome(() =>
      core.readNamespacedServiceAccount({ name: missingAccount, namespace }),
    );
    const noAccountPod = structuredClone(manifests.pods[0]!);
    noAccountPod.spec!.serviceAccountName = missingAccount;
    const podNoServiceAccount = await tape.outcome(() =>
      core.createNamespacedPod({ namespace, body: noAccountPod }),
    );
    const badPod = structuredClone(manifests.pods[0]!);
    badPod.metadata!.name = 'Netexec_Bad';
    badPod.spec!.containers[0]!.ports![0]!.containerPort = 70000;
    const podInvalid = await tape.outcome(() =>
      core.createNamespacedPod({ namespace, body: badPod }),
    );

    // Pods that cannot become Ready, each for another reason.
    const workers = facts.nodes.filter((n) => n.role === 'worker' && n.os === 'linux');
    const [pullNode, sandboxNode] = [workers[0]!, workers.at(-1)!];
    const missingWindows = 'win1';
    const failingPods = {
      [`netexec-${missingWindows}-a`]: `nodeSelector kubernetes.io/os=windows, kubernetes.io/hostname=${missingWindows}: no such node`,
      [`netexec-${pullNode.name}-a`]:
        'image mirror.local:5000/e2e/agnhost:2.52, a registry that does not resolve',
      [`netexec-${sandboxNode.name}-b`]:
        'sysctl net.ipv4.ip_local_port_range="1 0" (allowed, but the kernel refuses it when the sandbox starts)',
    };
    const render = (name: string, node: string, os: 'linux' | 'windows', podImage: string) =>
      renderSuiteManifests({
        namespace: failing,
        runId: RUN_ID,
        lab: LAB,
        stamp: STAMP,
        images: { linux: podImage, windows: podImage },
        pods: [{ name, nodeHostname: facts.hostnames[node] ?? node, os, localBackend: false }],
        serviceOses: [],
        hairpin: [],
        hostNetwork: [],
      });
    const unschedulable = render(`netexec-${missingWindows}-a`, missingWindows, 'windows', image);
    const pull = render(
      `netexec-${pullNode.name}-a`,
      pullNode.name,
      'linux',
      'mirror.local:5000/e2e/agnhost:2.52',
    );
    const sandbox = render(`netexec-${sandboxNode.name}-b`, sandboxNode.name, 'linux', image);
    sandbox.pods[0]!.spec!.securityContext = Object.assign(new V1PodSecurityContext(), {
      sysctls: [
        Object.assign(new V1Sysctl(), { name: 'net.ipv4.ip_local_port_range', value: '1 0' }),
      ],
    });
    await core.createNamespace({ body: unschedulable.namespace });
    failingCreated = true;
    say(`creating failing pods in ${failing}`);
    tape.clock.mark();
    const failFrom = tape.log.length;
    let createTooEarly: Exchange | undefined;
    for (const body of [unschedulable.pods[0]!, pull.pods[0]!, sandbox.pods[0]!]) {
      for (let attempt = 1; ; attempt++) {
        const created = await tape.outcome(() =>
          core.createNamespacedPod({ namespace: failing, body }),
        );
        const error = created.error as RecordedApiError | undefined;
        if (error === undefined) break;
        // Before 1.24 a pod needs the service account's token secret, made a moment after the namespace.
        if (error.code !== 500 || !error.body.includes('ServerTimeout') || attempt >= 30) {
          throw new Error(`create pod in ${failing} failed: ${error.body}`);
        }
        createTooEarly ??= withoutManagedFields(created);
        await sleep(1000);
      }
    }
    const sandboxName = sandbox.pods[0]!.metadata!.name!;
    for (let seen = false; !seen && tape.clock.now() < 150_000;) {
      await sleep(1000);
      const list = await core.listNamespacedPod({ namespace: failing });
      const events = await core.listNamespacedEvent({
        namespace: failing,
        fieldSelector: 'type=Warning',
      });
      const status = (name: string) => list.items.find((p) => p.metadata?.name === name)?.status;
      const unscheduled = status(unschedulable.pods[0]!.metadata!.name!)?.conditions?.some(
        (c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable',
      );
      const backOff =
        status(pull.pods[0]!.metadata!.name!)?.containerStatuses?.[0]?.state?.waiting?.reason ===
        'ImagePullBackOff';
      const sandboxFailed = events.items.some(
        (e) => e.involvedObject.name === sandboxName && e.reason === 'FailedCreatePodSandBox',
      );
      seen = unscheduled === true && backOff && sandboxFailed;
    }
    const failingPolls = tape.since(failFrom, 'listNamespacedPod');
    const warningPolls = tape.since(failFrom, 'listNamespacedEvent');
    const failureStatuses = podStatusSteps(failingPolls);
    say(`failing pods seen for ${tape.clock.now()} ms`);

    // Exec: the driver's probe commands and plain ones, from the first Linux worker's a pod.
    const source = workloads.pods.find((p) => p.node === pullNode.name && p.name.endsWith('-a'))!;
    const target = workloads.pods.find(
      (p) => p.node === sandboxNode.name && p.name.endsWith('-b'),
    )!;
    // Unused addresses on the target's node: ARP for them goes unanswered, so a connect times out
    // (1 s) before the neighbour entry fails (3 s). One each: a failed entry answers at once.
    const idle = (last: number) => target.ip.replace(/\.\d+$/, `.${last}`);
    const execClient: ExecClient = clients.exec;
    const runs: ExecRun[] = [];
    const exec = async (
      name: string,
      command: string[],
      pod = source.name,
      timeoutMs = 3000,
      request?: ProbeRequest,
    ) => {
      session.frames = [];
      const run: ExecRun = {
        name,
        pod,
        command,
        timeoutMs,
        ...(request === undefined ? {} : { request }),
        frames: session.frames,
      };
      try {
        const result = await execInPod(
          execClient,
          { namespace, pod, container: NETEXEC_CONTAINER },
          command,
          timeoutMs + 10_000,
        );
        run.result = { ...result, status: toJson(result.status) };
      } catch (error) {
        if (!(error instanceof ExecError)) throw error;
        run.error = {
          message: error.message,
          ...(error.cause === undefined ? {} : { cause: errorRecord(error.cause) }),
        };
      }
      runs.push(run);
      say(`exec ${name}: ${run.result?.exitCode ?? run.error?.message}`);
    };
    const probe = (name: string, request: ProbeRequest, timeoutMs = 3000) =>
      exec(name, probeCommand('linux', request, timeoutMs), source.name, timeoutMs, request);
    await exec('stdout', ['sh', '-c', 'echo hello; echo world']);
    await exec('stdout-stderr-exit-3', ['sh', '-c', 'echo out; echo err >&2; exit 3']);
    await exec('missing-executable', ['curl.exe', '--version']);
    await exec('missing-pod', ['true'], 'netexec-missing');
    await probe('http-clientip', { kind: 'http', url: `http://${target.ip}:8080/clientip` });
    await probe('http-refused', { kind: 'http', url: `http://${target.ip}:9/` });
    await probe('http-timeout', { kind: 'http', url: `http://${idle(250)}:8080/` }, 1000);
    await probe('dns-service', { kind: 'dns', name: 'web-linux' });
    await probe('dns-kubernetes', { kind: 'dns', name: 'kubernetes.default', port: 443 });
    await probe('dns-nxdomain', { kind: 'dns', name: 'web-nosuch' });
    const fqdn = (service: string) => `${service}.${namespace}.svc.cluster.local`;
    await probe('dns-tcp-service', { kind: 'dns-tcp', name: fqdn('web-linux') });
    await probe('dns-tcp-nxdomain', { kind: 'dns-tcp', name: fqdn('web-nosuch') });
    await probe('tcp-ok', { kind: 'tcp', host: target.ip, port: 8080 });
    await probe('tcp-refused', { kind: 'tcp', host: target.ip, port: 9 });
    await probe('tcp-timeout', { kind: 'tcp', host: idle(251), port: 8080 }, 1000);
    // One request each: a name no endpoint has keeps the sweep going until maxRequests.
    const udpSweep = (base: string) => ({
      kind: 'endpoints' as const,
      base,
      service: 'web-linux',
      expect: ['(one request)'],
      maxRequests: 1,
    });
    await probe('udp-sweep-service', udpSweep('udp://web-linux:8081'));
    await probe('udp-sweep-refused', udpSweep(`udp://${target.ip}:9`));
    await probe('udp-sweep-timeout', udpSweep(`udp://${idle(252)}:8081`), 1000);

    createTooEarly ??= await meetTooEarly(core, tape, unschedulable, say);
    const cordonedNode = await recordCordon(api, tape, facts);

    // Deletion: the first delete by hand, then the driver's cleanup (a second delete: 409,
    // then readNamespace until 404), then one more delete (404).
    say(`deleting ${namespace}`);
    await core.deleteNamespace({ name: failing });
    tape.clock.mark();
    const deleteFrom = tape.log.length;
    const nsDelete = await tape.outcome(() => core.deleteNamespace({ name: namespace }));
    await deployment.stop();
    const [nsDeleteAgain] = tape.since(deleteFrom + 1, 'deleteNamespace');
    const reads = tape.since(deleteFrom, 'readNamespace', (a) => a.name === namespace);
    const nsDeleteGone = await tape.outcome(() => core.deleteNamespace({ name: namespace }));
    await forNamespaceGone(core, failing, { timeoutMs: 180_000, pollMs: 1000 });
    failingCreated = false;

    const recordings: Recordings = {
      cluster: {
        version: cluster.version,
        nodes: cluster.nodes,
        cordonedNode,
        systemPods: cluster.systemPods,
      },
      namespaces: {
        create: withoutManagedFields(nsCreate!),
        createAgain: nsAgain,
        readMissing: nsMissing,
        delete: withoutManagedFields(nsDelete),
        deleteAgain: nsDeleteAgain!,
        readUntilGone: steps(
          reads.map(({ atMs, ...rest }) => ({ atMs, value: withoutManagedFields(rest) })),
        ),
        deleteGone: nsDeleteGone,
        serviceAccount: withoutManagedFields(serviceAccount!),
        serviceAccountMissing,
      },
      services: {
        create: serviceCreates.map(withoutManagedFields),
        read: serviceReads.map(withoutManagedFields),
        kubernetes: withoutManagedFields(kubernetes!),
        readMissing: serviceMissing,
        endpoints: endpoints.map(withoutManagedFields),
        endpointsMissing,
        createAgain: serviceAgain,
        createInvalid: serviceInvalid,
      },
      pods: {
        create: withoutManagedFields(podCreate!),
        untilReady,
        readMissing: podMissing,
        createInvalid: podInvalid,
        createAgain: podAgain,
        createTooEarly,
        createNoServiceAccount: podNoServiceAccount,
      },
      podFailures: {
        pods: failingPods,
        statuses: failureStatuses,
        warnings: withoutManagedFields(warningPolls.at(-1)!),
      },
      exec: { protocol: session.protocol, runs },
    };
    if (Object.keys(untilReady.pods).length !== pods.length) say('warning: pods missing in lists');
    await write(recordings, config, outDir, facts, image, kubeconfigPath);
  } finally {
    await deployment.stop().catch((e: unknown) => {
      say(`cleanup of ${namespace} failed: ${String(e)}`);
    });
    if (failingCreated) {
      await clients.core.deleteNamespace({ name: failing }).catch(() => undefined);
    }
  }
}

/** Every credential of the kubeconfig's user and cluster, and the PEM lines inside them. */
function credentials(config: KubeConfig): string[] {
  const user = config.getCurrentUser();
  const values = [user?.keyData, user?.certData, user?.token, user?.password].filter(
    (v): v is string => v !== undefined && v !== '',
  );
  const pemLines = values.flatMap((v) =>
    Buffer.from(v, 'base64')
      .toString('utf8')
      .split('\n')
      .filter((line) => line.length >= 40 && !line.startsWith('-----')),
  );
  return [...values, ...pemLines];
}

function assertNoSecrets(file: string, text: string, config: KubeConfig): void {
  const leaks = credentials(config).filter((secret) => text.includes(secret));
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) leaks.push('a PEM private key');
  // A service-account or OIDC token (a JWT: its base64url header starts with {"alg").
  if (/eyJhbGciOi[\w-]{8,}/.test(text)) leaks.push('a JWT');
  if (leaks.length > 0) {
    throw new Error(`${file} would contain a credential (${leaks.length}); nothing written`);
  }
}

async function write(
  recordings: Recordings,
  config: KubeConfig,
  outDir: string,
  facts: ClusterFacts,
  image: string,
  kubeconfigPath: string,
): Promise<void> {
  const version = facts.kubernetesVersion;
  const texts = new Map<string, string>();
  for (const topic of TOPICS) {
    const file = join(outDir, recordingFile(version, topic));
    const options = (await resolveConfig(file)) ?? {};
    texts.set(
      file,
      await format(JSON.stringify(recordings[topic]), { ...options, filepath: file }),
    );
  }
  const readme = join(outDir, recordingFile(version, 'README'));
  texts.set(readme, readmeText(recordings, facts, image, kubeconfigPath, outDir));
  for (const [file, text] of texts) assertNoSecrets(file, text, config);
  mkdirSync(outDir, { recursive: true });
  for (const [file, text] of texts) {
    writeFileSync(file, text);
    process.stderr.write(`record-kube-api: wrote ${file} (${text.length} bytes)\n`);
  }
}

function errorCode(exchange: Exchange): string {
  return exchange.error !== undefined && 'code' in exchange.error
    ? String(exchange.error.code)
    : 'error';
}

function goneAfter(recordings: Recordings): number {
  return Math.round((recordings.namespaces.readUntilGone.at(-1)?.atMs ?? 0) / 1000);
}

function readmeText(
  recordings: Recordings,
  facts: ClusterFacts,
  image: string,
  kubeconfigPath: string,
  outDir: string,
): string {
  const version = facts.kubernetesVersion;
  const date = new Date().toISOString().slice(0, 10);
  const nodes = facts.nodes
    .map((n) => `${n.name} (${n.role}, ${n.ip}, ${facts.osBuilds[n.name] ?? 'unknown'})`)
    .join('; ');
  const runs = recordings.exec.runs.map((r) => r.name).join(', ');
  const out = relative(process.cwd(), outDir) || '.';
  const lines = [
    `# Recordings of a live Kubernetes ${version} API server`,
    '',
    `Recorded on ${date} by \`specs/testing/record-kube-api.ts\`:`,
    '',
    '```',
    `AGNHOST_IMAGE=${image} npx tsx specs/testing/record-kube-api.ts ${kubeconfigPath} ${out}`,
    '```',
    '',
    `Cluster: ${process.env.RECORDED_CLUSTER ?? 'a kubeadm cluster'}. Nodes: ${nodes}.`,
    ...(process.env.RECORDED_SETUP === undefined
      ? []
      : ['', 'It was brought up with:', '', '```', process.env.RECORDED_SETUP, '```']),
    '',
    `Exec websocket protocol: ${recordings.exec.protocol}. Cluster DNS: ${facts.clusterDns ?? 'not found'}.`,
    '',
    'What the files hold (see `kube-recording-format.ts` for the shapes; `kube-recorded-objects.ts`',
    'turns them into the fakes):',
    '',
    `- \`${recordingFile(version, 'cluster')}\`: /version, the node list, a cordoned node, the kube-system and kube-flannel pod lists`,
    `- \`${recordingFile(version, 'namespaces')}\`: create, create again (409), read a missing one (404), delete, delete again while Terminating (${recordings.namespaces.deleteAgain.error === undefined ? 'answered like the first: 200, phase Terminating' : errorCode(recordings.namespaces.deleteAgain)}), reads until gone (Terminating for ${goneAfter(recordings)} s, then 404), delete once gone (404); the run namespace's \`default\` service account, and a missing one (404)`,
    `- \`${recordingFile(version, 'services')}\`: the suite's creates (its three Services and its two externalTrafficPolicy Local ones, clusterIP and nodePort assigned, and one hairpin Service per node, win1's too), reads, default/kubernetes, a missing one (404), create again (409), an invalid nodePort (422); each Service's Endpoints once its pods were Ready, and a missing one (404)`,
    `- \`${recordingFile(version, 'pods')}\`: a create, every pod's status per poll from the creates until all were Ready, a missing pod (404), create again (409), an invalid pod (422), a create made before the namespace's service-account token existed (500), and one naming a service account that does not exist (403)`,
    `- \`${recordingFile(version, 'podFailures')}\`: an unschedulable pod, an image that cannot be pulled, a sandbox that cannot start: their statuses per poll and the Warning events`,
    `- \`${recordingFile(version, 'exec')}\`: exec frames per channel and what execInPod made of them: ${runs}`,
    '',
    'Trimmed to stay commit-sized: `managedFields` everywhere, `status.images` of nodes, the',
    'system pods cut to names, labels and container images, the run pods to their status per',
    'poll and the namespace reads to one per change (a poll equal to the one before is',
    'counted, not repeated), request bodies (the rendered manifests), and response headers',
    'other than content-type. Exec frames are kept as they came. Nothing the driver reads is',
    'removed. Responses are what client-node 1.4 resolved with, as JSON (dates as ISO text);',
    'error bodies are the text ApiException carried, verbatim.',
    '',
    'No credential is in them: bodies carry object names only (the pods mount their',
    'service-account token by secret name), and the recorder refuses to write a file',
    "containing the kubeconfig's client key, certificate or token, a PEM private key or a JWT.",
    '',
  ];
  return lines.join('\n');
}

await main();
