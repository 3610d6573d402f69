/** Loads the suite's YAML templates from manifests/suite and renders them for one run. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  V1LocalObjectReference,
  V1Toleration,
  type V1Namespace,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import {
  HOST_ANNOTATION,
  LAB_LABEL,
  LOCAL_BACKEND_LABEL,
  OWNER_ANNOTATION,
  PID_ANNOTATION,
  POD_LABEL,
  RUN_LABEL,
  SLOT_LABEL,
  STARTED_ANNOTATION,
  type RunStamp,
} from '../../../lab/contracts/kubernetes-names.ts';
import { LabError } from '../../../lab/errors.ts';
import { suiteTolerations } from '../../../lab/providers/existing/node-usability.ts';
import type { Toleration } from '../../../lab/providers/existing/node-filter.ts';
import type { Os } from '../../../lab/contracts/cells.ts';
import { CHURN_APP, churnServiceName } from '../../model/churn.ts';
import {
  SERVICE_SLOT,
  dnsLabel,
  hairpinServiceName,
  localServiceName,
  slotOf,
} from '../../model/workload-names.ts';

export const MANIFEST_DIR = fileURLToPath(new URL('../../../manifests/suite/', import.meta.url));
/** The container every probe execs into. */
export const NETEXEC_CONTAINER = 'netexec';

export interface PodToRender {
  name: string;
  /** The node's `kubernetes.io/hostname` label value. */
  nodeHostname: string;
  os: Os;
  /** It backs its OS's externalTrafficPolicy Local Service. */
  localBackend: boolean;
}

/** What every pod the suite runs carries beyond its template: the user's tolerations and pull secret. */
export interface PodExtras {
  /** TOLERATIONS, on top of each OS's own (SUITE_TOLERATIONS). */
  tolerations?: readonly Toleration[];
  /** The run namespace's copy of IMAGE_PULL_SECRET, named in imagePullSecrets. */
  pullSecret?: string;
}

export interface RenderInput extends PodExtras {
  namespace: string;
  runId: string;
  lab: string;
  /** Who started the run, where and when: the namespace's annotations (`lab reap` reads them). */
  stamp: RunStamp;
  /** The agnhost image of each OS's pods. */
  images: Record<Os, string>;
  pods: readonly PodToRender[];
  /** OSes that get a `web-<os>` NodePort Service, and a `local-<os>` one with externalTrafficPolicy Local. */
  serviceOses: readonly Os[];
  /** Each node's source pod, which gets a `hairpin-<node>` Service of its own. */
  hairpin: readonly { node: string; pod: string }[];
  /** Every node, which gets a netexec pod on its own network (hostNetwork; HostProcess on Windows). */
  hostNetwork: readonly { name: string; nodeHostname: string; os: Os }[];
  /** OSes that get a `churn-<os>` Service, and the churn pods it starts with (none when absent). */
  churnOses?: readonly Os[];
  churnPods?: readonly PodToRender[];
}

export interface SuiteManifests {
  namespace: V1Namespace;
  pods: V1Pod[];
  services: V1Service[];
  /** The hairpin Services, in the order of `RenderInput.hairpin`. */
  hairpin: V1Service[];
  /** The externalTrafficPolicy Local Services, in the order of `RenderInput.serviceOses`. */
  local: V1Service[];
  /** The host-network netexec pods, in the order of `RenderInput.hostNetwork`. */
  hostNetwork: V1Pod[];
  /** The churn Services, in the order of `RenderInput.churnOses`, and their first pods. */
  churn: V1Service[];
  churnPods: V1Pod[];
}

/** A pod hostname must be one DNS label. */
export function podHostname(podName: string): string {
  return dnsLabel(podName);
}

/** Renders one template; `${var}` in any string value or key is replaced, unknown names are an error. */
export function renderTemplate(file: string, vars: Readonly<Record<string, string>>): unknown {
  const substitute = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(/\$\{(\w+)\}/g, (_, name: string) => {
        const found = vars[name];
        if (found === undefined) throw new LabError(`${file}: unknown placeholder \${${name}}`);
        return found;
      });
    }
    if (Array.isArray(value)) return value.map(substitute);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [substitute(k) as string, substitute(v)]),
      );
    }
    return value;
  };
  return substitute(parse(readFileSync(file, 'utf8')));
}

function pullSecretRef(name: string): V1LocalObjectReference {
  return Object.assign(new V1LocalObjectReference(), { name });
}

/**
 * `pod` with the tolerations every suite pod of `os` has (control-plane and Windows taints, and
 * TOLERATIONS) and the run's pull secret: one place, so that the pods and the check of which nodes
 * they can go to (node-usability.ts) agree.
 */
export function withExtras(pod: V1Pod, os: Os, extras: PodExtras): V1Pod {
  const spec = pod.spec!;
  spec.tolerations = suiteTolerations(os, extras.tolerations).map((t) =>
    Object.assign(new V1Toleration(), t),
  );
  if (extras.pullSecret !== undefined) spec.imagePullSecrets = [pullSecretRef(extras.pullSecret)];
  return pod;
}

export function commonVars(input: Pick<RenderInput, 'runId' | 'lab'>): Record<string, string> {
  return {
    runId: input.runId,
    lab: input.lab,
    labLabel: LAB_LABEL,
    runLabel: RUN_LABEL,
    slotLabel: SLOT_LABEL,
    podLabel: POD_LABEL,
    localLabel: LOCAL_BACKEND_LABEL,
  };
}

/** One netexec pod: of the suite's Services (`app` netexec), or of a churn Service (`app` churn). */
export function renderNetexecPod(
  input: Pick<RenderInput, 'runId' | 'lab' | 'images'> & PodExtras,
  pod: PodToRender,
  app = 'netexec',
  dir = MANIFEST_DIR,
): V1Pod {
  const body = renderTemplate(join(dir, 'netexec-pod.yaml'), {
    ...commonVars(input),
    name: pod.name,
    app,
    hostname: podHostname(pod.name),
    os: pod.os,
    slot: slotOf(pod.name),
    localBackend: String(pod.localBackend),
    node: pod.nodeHostname,
    image: input.images[pod.os],
  }) as V1Pod;
  return withExtras(body, pod.os, input);
}

/**
 * A node's shell for path evidence on a cluster the harness did not make: privileged, host
 * network and PIDs on Linux; HostProcess as SYSTEM on Windows.
 */
export function renderNodeShellPod(
  input: Pick<RenderInput, 'runId' | 'lab' | 'pullSecret'> & { image: string },
  pod: { name: string; nodeHostname: string; os: Os },
  dir = MANIFEST_DIR,
): V1Pod {
  const body = renderTemplate(join(dir, `node-shell-pod-${pod.os}.yaml`), {
    ...commonVars(input),
    name: pod.name,
    node: pod.nodeHostname,
    image: input.image,
  }) as V1Pod;
  // Its own tolerations (every taint) stay: evidence goes where the failing flow went.
  if (input.pullSecret !== undefined)
    body.spec!.imagePullSecrets = [pullSecretRef(input.pullSecret)];
  return body;
}

/** The over-time rows' Services (specs/engine/disruption): a twin Service, or the stateful UDP one. */
export function renderOverTimeService(
  input: Pick<RenderInput, 'runId' | 'lab'>,
  kind: 'twin' | 'udp-state',
  name: string,
  os: Os,
  dir = MANIFEST_DIR,
): V1Service {
  return renderTemplate(join(dir, `${kind}-service.yaml`), {
    ...commonVars(input),
    name,
    os,
    slot: SERVICE_SLOT,
  }) as V1Service;
}

/** Every object deploy() creates, rendered from the templates in `dir`. */
export function renderSuiteManifests(input: RenderInput, dir = MANIFEST_DIR): SuiteManifests {
  const common = commonVars(input);
  const at = (name: string) => join(dir, name);
  return {
    namespace: renderTemplate(at('namespace.yaml'), {
      ...common,
      namespace: input.namespace,
      owner: input.stamp.owner,
      host: input.stamp.host,
      startedAt: input.stamp.startedAt,
      pid: String(input.stamp.pid),
      ownerAnnotation: OWNER_ANNOTATION,
      hostAnnotation: HOST_ANNOTATION,
      startedAnnotation: STARTED_ANNOTATION,
      pidAnnotation: PID_ANNOTATION,
    }) as V1Namespace,
    pods: input.pods.map((pod) => renderNetexecPod(input, pod, 'netexec', dir)),
    services: [
      renderTemplate(at('netexec-headless-service.yaml'), common) as V1Service,
      ...input.serviceOses.map(
        (os) =>
          renderTemplate(at('web-service.yaml'), {
            ...common,
            os,
            slot: SERVICE_SLOT,
          }) as V1Service,
      ),
    ],
    hairpin: input.hairpin.map(
      ({ node, pod }) =>
        renderTemplate(at('hairpin-service.yaml'), {
          ...common,
          name: hairpinServiceName(node),
          podHostname: podHostname(pod),
        }) as V1Service,
    ),
    hostNetwork: input.hostNetwork.map((pod) =>
      withExtras(
        renderTemplate(at(`host-netexec-pod-${pod.os}.yaml`), {
          ...common,
          name: pod.name,
          node: pod.nodeHostname,
          image: input.images[pod.os],
        }) as V1Pod,
        pod.os,
        input,
      ),
    ),
    local: input.serviceOses.map(
      (os) =>
        renderTemplate(at('local-service.yaml'), {
          ...common,
          name: localServiceName(os),
          os,
        }) as V1Service,
    ),
    churn: (input.churnOses ?? []).map(
      (os) =>
        renderTemplate(at('churn-service.yaml'), {
          ...common,
          name: churnServiceName(os),
          os,
        }) as V1Service,
    ),
    churnPods: (input.churnPods ?? []).map((pod) => renderNetexecPod(input, pod, CHURN_APP, dir)),
  };
}
