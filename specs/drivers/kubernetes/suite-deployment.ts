/** Owns what one run deploys (the run namespace with its pods and Services, the external echo). */
import { setTimeout as sleep } from 'node:timers/promises';
import { V1ObjectMeta, V1Secret, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { LAB_LABEL, RUN_LABEL } from '../../../lab/contracts/kubernetes-names.ts';
import type { Logger } from '../../../lab/log/logger.ts';
import type { RunStamp } from '../../../lab/contracts/kubernetes-names.ts';
import { HEADLESS_SERVICE, serviceName, sourcePod } from '../../model/workload-names.ts';
import type { Os } from '../../../lab/contracts/cells.ts';
import type {
  DeployedPod,
  DeployedService,
  HairpinService,
  LocalService,
  Workloads,
} from '../../model/lab-driver.ts';
import { ExternalEcho } from './external-echo.ts';
import { HOST_NETEXEC_PORTS } from '../../../lab/cluster/runtime/workload-programs.ts';
import { InfrastructureError } from '../../model/infrastructure-error.ts';
import {
  apiErrorText,
  apiStatusCode,
  isNotFound,
  retryAfterSeconds,
  type CoreClient,
} from './kube-clients.ts';
import {
  type WaitOptions,
  forDefaultServiceAccount,
  forEndpoints,
  forNamespaceGone,
  forPodsGone,
  forPodsReady,
} from './pod-waits.ts';
import { WaitTimeoutError } from '../../../lab/errors.ts';
import {
  podHostname,
  renderNetexecPod,
  renderSuiteManifests,
  type PodExtras,
  type PodToRender,
} from './suite-manifests.ts';
import { CHURN_APP } from '../../model/churn.ts';
import { renderFeatureManifests } from './feature-manifests.ts';
import { POD_KINDS, podSecurityRefusal, type PodKind } from './pod-security.ts';
import { deployedFeatures } from './feature-services.ts';
import { forImagesPulled } from './image-pulls.ts';
import { settleAll } from '../../../lab/wait/poll.ts';

export interface DeploymentSettings extends PodExtras {
  namespace: string;
  /** IMAGE_PULL_SECRET: copied into the run namespace (as `pullSecret`) before any pod. */
  pullSecretSource?: { namespace: string; name: string };
  runId: string;
  lab: string;
  /** Who started the run, where and when: stamped on the namespace for `lab reap`. */
  stamp: RunStamp;
  /** The agnhost image of each OS's pods. */
  images: Record<Os, string>;
  dnsDomain: string;
  pods: readonly (PodToRender & { node: string })[];
  /** Every node's host-network netexec pod, with the node's address. */
  hostNetwork: readonly {
    node: string;
    name: string;
    nodeHostname: string;
    os: Os;
    address: string;
  }[];
  serviceOses: readonly Os[];
  /** OSes with nodes, which get a churn Service, and the churn pods it starts with. */
  churnOses: readonly Os[];
  churnPods: readonly PodToRender[];
  /** The address NodePort probes from outside leave from (Workloads.outsideAddress). */
  outsideAddress: string;
  /**
   * The outbound-NAT echo: one the lab runs itself (used as it is, never started or stopped, its
   * /hostname answering `hostname`), or one started here at `address` and `port`.
   */
  echo:
    | { lab: { address: string; port: number; hostname: string } }
    | { address: string; port: number };
  /**
   * The Service-feature rows: whether the cluster has internalTrafficPolicy, the affinity timeout,
   * and the health-check Services' load balancer class (none where the cluster lacks the field).
   */
  features: { internalLocal: boolean; affinityTimeoutSeconds: number; loadBalancerClass?: string };
  /** Leave the run namespace for the nightly collector. */
  keepNamespace: boolean;
  log: Logger;
  /** The wait for the pods' images (PREPULL_TIMEOUT_MS), before the readiness wait starts. */
  pullTimeoutMs: number;
  /** Progress of that wait for the user, one line at a time. */
  say: (line: string) => void;
  podsReadyTimeoutMs: number;
  namespaceGoneTimeoutMs: number;
  pollMs?: number;
}

/** How often a call the server asks to repeat is repeated. */
const RETRIES = 10;

export class SuiteDeployment implements AsyncDisposable {
  #namespaceCreated = false;
  #namespaceDeleting = false;
  #echo: ExternalEcho | undefined;
  #stopping: Promise<void> | undefined;

  constructor(
    private readonly core: CoreClient,
    private readonly settings: DeploymentSettings,
  ) {}

  get namespace(): string {
    return this.settings.namespace;
  }

  /** Starts the echo, creates the namespace, Services and pods, and waits until the pods are Ready. */
  async start(): Promise<Workloads> {
    const { namespace, log } = this.settings;
    const hairpinPods = this.settings.pods
      .filter((p) => p.name === sourcePod(p.node))
      .map(({ node, name }) => ({ node, pod: name }));
    const manifests = renderSuiteManifests({ ...this.settings, hairpin: hairpinPods });
    const wanted = this.settings.echo;
    let echo: { address: string; port: number; hostname: string };
    if ('lab' in wanted) {
      echo = wanted.lab;
    } else {
      this.#echo = await ExternalEcho.start(wanted.address, wanted.port);
      echo = this.#echo;
    }
    const featureInput = {
      ...this.settings,
      ...this.settings.features,
      dnsDomain: this.settings.dnsDomain,
      oses: this.settings.serviceOses,
      echo: { address: echo.address, port: echo.port },
    };
    const features = renderFeatureManifests(featureInput);
    const endpoint = { address: echo.address, port: echo.port };
    log.info(
      { namespace, images: this.settings.images, echo: endpoint },
      'deploying suite workloads',
    );
    await this.#api(`create namespace ${namespace}`, () =>
      this.core.createNamespace({ body: manifests.namespace }),
    );
    this.#namespaceCreated = true;
    await this.#copyPullSecret();
    await this.#waitServiceAccount();
    const hostKind = (os: Os) =>
      os === 'windows' ? POD_KINDS.hostNetworkWindows : POD_KINDS.hostNetworkLinux;
    const pods = [
      ...manifests.pods.map((body) => ({ body, kind: POD_KINDS.netexec })),
      ...manifests.hostNetwork.map((body, i) => ({
        body,
        kind: hostKind(this.settings.hostNetwork[i]!.os),
      })),
      ...manifests.churnPods.map((body) => ({ body, kind: POD_KINDS.churn })),
    ];
    await this.#dryRunPods(pods);
    // The pods, their images and their readiness before any Service: a pod the cluster will not
    // run (an image it cannot pull, a node that refuses it) ends the run with only the pods made.
    await this.#createPods(pods);
    const created = [
      ...this.settings.pods,
      ...this.settings.hostNetwork,
      ...this.settings.churnPods.map((p) => ({ ...p, node: p.nodeHostname })),
    ];
    await this.#waitPulled(created);
    const ready = await this.#waitReady(created);
    for (const body of manifests.services) {
      await this.#api(`create service ${body.metadata?.name}`, () =>
        this.core.createNamespacedService({ namespace, body }),
      );
    }
    const hairpin: HairpinService[] = [];
    for (const [i, body] of manifests.hairpin.entries()) {
      const created = await this.#api(`create service ${body.metadata?.name}`, () =>
        this.core.createNamespacedService({ namespace, body }),
      );
      hairpin.push(this.#hairpinService(hairpinPods[i]!.pod, created));
    }
    const local: LocalService[] = [];
    for (const [i, body] of manifests.local.entries()) {
      const created = await this.#api(`create service ${body.metadata?.name}`, () =>
        this.core.createNamespacedService({ namespace, body }),
      );
      const nodePort = created.spec?.ports?.[0]?.nodePort ?? 0;
      local.push({
        name: created.metadata?.name ?? '',
        os: this.settings.serviceOses[i]!,
        nodePort,
      });
    }
    const featureServices = [];
    for (const body of [...features.selected, ...features.unselected]) {
      featureServices.push(
        await this.#api(`create service ${body.metadata?.name}`, () =>
          this.core.createNamespacedService({ namespace, body }),
        ),
      );
    }
    await this.#api('create endpoints external-echo', () =>
      this.core.createNamespacedEndpoints({ namespace, body: features.endpoints }),
    );
    const churn = [];
    for (const [i, body] of manifests.churn.entries()) {
      const created = await this.#api(`create service ${body.metadata?.name}`, () =>
        this.core.createNamespacedService({ namespace, body }),
      );
      churn.push({
        os: this.settings.churnOses[i]!,
        name: created.metadata?.name ?? '',
        clusterIP: created.spec?.clusterIP ?? '',
        port: created.spec?.ports?.[0]?.port ?? 0,
      });
    }
    await this.#waitEndpoints(
      [
        ...manifests.services,
        ...manifests.hairpin,
        ...manifests.local,
        ...manifests.churn,
        ...features.selected,
      ],
      ready,
    );
    const services = await Promise.all(
      this.settings.serviceOses.map((os) =>
        this.#api(`read service ${serviceName(os)}`, () =>
          this.core.readNamespacedService({ name: serviceName(os), namespace }),
        ),
      ),
    );
    const api = await this.#api('read service default/kubernetes', () =>
      this.core.readNamespacedService({ name: 'kubernetes', namespace: 'default' }),
    );
    log.info({ namespace, pods: ready.length }, 'suite workloads ready');
    return {
      namespace,
      pods: this.settings.pods.map((p, i) => this.#deployedPod(p, ready[i]!)),
      hostNetwork: this.settings.hostNetwork.map(({ node, address, nodeHostname }) => ({
        node,
        address,
        port: HOST_NETEXEC_PORTS.http,
        // A host-network pod shares the node's UTS namespace: netexec answers its hostname.
        hostname: nodeHostname,
      })),
      services: services.map((s, i) => this.#deployedService(this.settings.serviceOses[i]!, s)),
      hairpin,
      local,
      churn,
      features: deployedFeatures(featureInput, featureServices, echo.hostname),
      outsideAddress: this.settings.outsideAddress,
      external: { address: echo.address, port: echo.port },
      apiServiceIP: api.spec?.clusterIP ?? '',
      dnsDomain: this.settings.dnsDomain,
    };
  }

  /**
   * Changes a churn Service's pods: deletes `remove` and waits until they are gone, then creates
   * `create` and waits until they are Ready. What the Endpoints and every node's rules make of
   * it is left to the churn cells to find out.
   */
  async churnPods(remove: readonly string[], create: readonly PodToRender[]): Promise<void> {
    const { namespace } = this.settings;
    await Promise.all(
      remove.map((name) =>
        this.#api(`delete pod ${name}`, () =>
          this.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }),
        ),
      ),
    );
    if (remove.length > 0) {
      await this.#waitFor(
        `churn pods ${remove.join(', ')} were not deleted`,
        `kubectl -n ${namespace} get pods -o wide`,
        () => forPodsGone(this.core, namespace, remove, this.#waitOptions()),
      );
    }
    await this.#createPods(
      create.map((pod) => ({
        body: renderNetexecPod(this.settings, pod, CHURN_APP),
        kind: POD_KINDS.churn,
      })),
    );
    if (create.length > 0) await this.#waitReady(create);
  }

  /** IMAGE_PULL_SECRET's Secret, copied into the run namespace under its own name. */
  async #copyPullSecret(): Promise<void> {
    const { pullSecretSource: source, namespace, runId, lab } = this.settings;
    if (source === undefined) return;
    let secret: V1Secret;
    try {
      secret = await this.core.readNamespacedSecret(source);
    } catch (error) {
      throw new InfrastructureError(
        `IMAGE_PULL_SECRET ${source.namespace}/${source.name}: ${apiErrorText(error)}`,
        {
          cause: error,
          hint: `kubectl -n ${source.namespace} create secret docker-registry ${source.name} --docker-server=REGISTRY --docker-username=USER --docker-password=PASSWORD; ClusterRole hybrid-lab-pull-secret lets the run read it`,
        },
      );
    }
    const copy = Object.assign(new V1Secret(), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: Object.assign(new V1ObjectMeta(), {
        name: source.name,
        labels: { [RUN_LABEL]: runId, [LAB_LABEL]: lab },
      }),
      ...(secret.type === undefined ? {} : { type: secret.type }),
      ...(secret.data === undefined ? {} : { data: secret.data }),
    });
    await this.#api(`create secret ${source.name} (a copy of IMAGE_PULL_SECRET)`, () =>
      this.core.createNamespacedSecret({ namespace, body: copy }),
    );
  }

  /**
   * Creates the pods at once and returns once every create has answered, so that a cleanup after
   * a refusal meets no create still under way; the first refusal is rethrown, a Pod Security one
   * naming the pod's kind and the namespace label it needs.
   */
  /**
   * One server-side dry run of each kind of pod (`dryRun=All`: admission runs, nothing is
   * stored) before any Service exists: a Pod Security level or a policy engine that refuses a
   * kind ends the run with the namespace alone to remove.
   */
  async #dryRunPods(pods: readonly { body: V1Pod; kind: PodKind }[]): Promise<void> {
    const { namespace } = this.settings;
    const firstOfKind = pods.filter((p, i) => pods.findIndex((q) => q.kind === p.kind) === i);
    await settleAll(
      firstOfKind.map(({ body, kind }) => {
        const name = body.metadata?.name ?? '';
        return this.#api(
          `create pod ${name} (dry run)`,
          () => this.core.createNamespacedPod({ namespace, body, dryRun: 'All' }),
          (error) => podSecurityRefusal(error, { name, kind }, namespace),
        );
      }),
    );
  }

  async #createPods(pods: readonly { body: V1Pod; kind: PodKind }[]): Promise<void> {
    const { namespace, log } = this.settings;
    const results = await Promise.allSettled(
      pods.map(({ body, kind }) => {
        const name = body.metadata?.name ?? '';
        return this.#api(
          `create pod ${name}`,
          () => this.core.createNamespacedPod({ namespace, body }),
          (error) => podSecurityRefusal(error, { name, kind }, namespace),
        );
      }),
    );
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failed.length === 0) return;
    if (failed.length > 1) {
      log.error(
        { namespace, errors: failed.slice(1).map((e) => String(e)) },
        `${failed.length} of ${pods.length} pod creates failed; the first is reported`,
      );
    }
    throw failed[0];
  }

  /** What stop() has not removed yet: the run namespace, while it exists (say, Terminating). */
  pending(): string[] {
    if (!this.#namespaceCreated) return [];
    const state = this.#namespaceDeleting ? 'Terminating' : 'not yet deleted';
    return [`namespace ${this.settings.namespace} (${state}; \`npm run lab -- reap\` removes it)`];
  }

  /** Deletes the namespace (waits, bounded), then stops the echo; idempotent, first error rethrown. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop().finally(() => {
      this.#stopping = undefined;
    });
    return this.#stopping;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #stop(): Promise<void> {
    const { namespace, log } = this.settings;
    const errors: unknown[] = [];
    const step = async (what: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (error) {
        errors.push(error);
        log.error({ err: error, step: what }, 'cleanup step failed');
      }
    };
    // The nightly job describes the probe pods before it destroys the lab; it asks to keep them.
    const keep = this.settings.keepNamespace;
    if (this.#namespaceCreated && keep) {
      log.info({ namespace }, 'run namespace kept (HYBRID_KEEP_RUN_NAMESPACE=1)');
    } else if (this.#namespaceCreated) {
      await step(`delete namespace ${namespace}`, async () => {
        try {
          await this.core.deleteNamespace({ name: namespace });
        } catch (error) {
          // 404: already gone; 409: already Terminating (a second cleanup after a slow first one).
          if (!isNotFound(error) && apiStatusCode(error) !== 409) throw error;
        }
        this.#namespaceDeleting = true;
        try {
          await forNamespaceGone(this.core, namespace, {
            timeoutMs: this.settings.namespaceGoneTimeoutMs,
            ...(this.settings.pollMs === undefined ? {} : { pollMs: this.settings.pollMs }),
          });
        } catch (error) {
          if (!(error instanceof WaitTimeoutError)) throw error;
          // The API accepted the delete; a pod slow to terminate is the cluster's business, not a
          // failed run (upstream e2e waits 5 min too). The next `lab reap` finds it by its label.
          const note = `namespace ${namespace} is still Terminating after ${this.settings.namespaceGoneTimeoutMs / 1000} s; it will go on its own (kubectl get namespace ${namespace})`;
          log.warn({ namespace }, note);
          process.stderr.write(`hybrid-lab: warning: ${note}\n`);
        }
        this.#namespaceCreated = false;
        this.#namespaceDeleting = false;
        log.info({ namespace }, 'run namespace deleted');
      });
    }
    const echo = this.#echo;
    if (echo !== undefined) {
      await step('stop the external echo', async () => {
        await echo.stop();
        this.#echo = undefined;
      });
    }
    if (errors.length > 0) throw errors[0];
  }

  /**
   * An API call; one the server asks to repeat (retryAfterSeconds) is, up to RETRIES times. A
   * failure is what `explain` makes of it, else an InfrastructureError saying `what`.
   */
  async #api<T>(
    what: string,
    call: () => Promise<T>,
    explain: (error: unknown) => InfrastructureError | undefined = () => undefined,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const after = retryAfterSeconds(error);
        if (after === undefined || attempt > RETRIES) {
          throw (
            explain(error) ??
            new InfrastructureError(`${what} failed: ${apiErrorText(error)}`, { cause: error })
          );
        }
        await sleep(after * 1000);
      }
    }
  }

  /** The deploy's waits: bounded by the pods-ready timeout, polled as the settings say. */
  #waitOptions(): WaitOptions {
    const { podsReadyTimeoutMs: timeoutMs, pollMs } = this.settings;
    return pollMs === undefined ? { timeoutMs } : { timeoutMs, pollMs };
  }

  /** A controller's wait; its timeout or API error becomes an InfrastructureError saying `what`. */
  async #waitFor(what: string, hint: string, wait: () => Promise<void>): Promise<void> {
    try {
      await wait();
    } catch (error) {
      const text = error instanceof WaitTimeoutError ? error.message : apiErrorText(error);
      throw new InfrastructureError(`${what}: ${text}`, { cause: error, hint });
    }
  }

  #waitEndpoints(services: readonly V1Service[], pods: readonly V1Pod[]): Promise<void> {
    const { namespace } = this.settings;
    return this.#waitFor(
      "the run's Services have not got their pods",
      `kube-controller-manager writes Endpoints: kubectl -n ${namespace} get endpoints; kubectl -n kube-system get pods`,
      () => forEndpoints(this.core, namespace, services, pods, this.#waitOptions()),
    );
  }

  #waitServiceAccount(): Promise<void> {
    const { namespace } = this.settings;
    return this.#waitFor(
      `no pod can be created in ${namespace} yet`,
      'kube-controller-manager makes every namespace its default service account: kubectl -n kube-system get pods',
      () => forDefaultServiceAccount(this.core, namespace, this.#waitOptions()),
    );
  }

  /** The images on every node first: a first Windows pull takes minutes no readiness bound allows. */
  #waitPulled(pods: readonly { name: string; node: string }[]): Promise<void> {
    const { namespace, pullTimeoutMs, say, pollMs } = this.settings;
    return this.#waitFor(
      "the suite's images were not pulled in time",
      `PREPULL_TIMEOUT_MS=${pullTimeoutMs} bounds the pulls (a first pull of a Windows image can take 15 min); ${this.#imageHint()}`,
      () =>
        forImagesPulled(this.core, namespace, pods, {
          timeoutMs: pullTimeoutMs,
          say,
          setting: 'PREPULL_TIMEOUT_MS',
          ...(pollMs === undefined ? {} : { pollMs }),
        }),
    );
  }

  /** Which images the pods run, how to name others, and how a private registry is reached. */
  #imageHint(): string {
    const { images, pullSecret, namespace } = this.settings;
    const secret =
      pullSecret === undefined
        ? 'a private registry needs IMAGE_PULL_SECRET=NAMESPACE/NAME (a docker-registry Secret the run copies into its namespace)'
        : `the pods pull with the Secret ${pullSecret} (copied from IMAGE_PULL_SECRET)`;
    return `kubectl -n ${namespace} describe pods; images ${images.linux} (Linux), ${images.windows} (Windows) (override: AGNHOST_IMAGE, AGNHOST_IMAGE_LINUX and AGNHOST_IMAGE_WINDOWS, or IMAGE_REPO and AGNHOST_TAG); ${secret}`;
  }

  async #waitReady(pods: readonly { name: string }[]): Promise<V1Pod[]> {
    const { namespace } = this.settings;
    try {
      return await forPodsReady(
        this.core,
        namespace,
        pods.map((p) => p.name),
        this.#waitOptions(),
      );
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      throw new InfrastructureError(`suite workloads did not become ready: ${text}`, {
        cause: error,
        hint: this.#imageHint(),
      });
    }
  }

  #deployedPod(pod: { name: string; node: string; os: Os }, ready: V1Pod): DeployedPod {
    const { namespace, dnsDomain } = this.settings;
    return {
      name: pod.name,
      node: pod.node,
      os: pod.os,
      ip: ready.status?.podIP ?? '',
      fqdn: `${podHostname(pod.name)}.${HEADLESS_SERVICE}.${namespace}.svc.${dnsDomain}`,
    };
  }

  #hairpinService(pod: string, service: V1Service): HairpinService {
    const name = service.metadata?.name ?? '';
    return {
      name,
      pod,
      clusterIP: service.spec?.clusterIP ?? '',
      port: service.spec?.ports?.[0]?.port ?? 0,
      fqdn: `${name}.${this.settings.namespace}.svc.${this.settings.dnsDomain}`,
    };
  }

  #deployedService(os: Os, service: V1Service): DeployedService {
    const ports = service.spec?.ports ?? [];
    const port = ports.find((p) => p.protocol !== 'UDP');
    const udp = ports.find((p) => p.protocol === 'UDP');
    const name = service.metadata?.name ?? serviceName(os);
    return {
      name,
      os,
      clusterIP: service.spec?.clusterIP ?? '',
      port: port?.port ?? 0,
      nodePort: port?.nodePort ?? 0,
      udpPort: udp?.port ?? 0,
      udpNodePort: udp?.nodePort ?? 0,
      fqdn: `${name}.${this.settings.namespace}.svc.${this.settings.dnsDomain}`,
    };
  }
}
