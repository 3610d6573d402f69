/**
 * Test support: API objects in the shapes a kubeadm v1.30 cluster with one Linux control plane, one
 * Linux worker and one Windows Server 2022 worker returns (trimmed to the fields the driver reads).
 * Unit level only — no real cluster exists on this machine.
 */
import { CoreV1Event, V1Node, V1PodStatus, V1Status, VersionInfo } from '@kubernetes/client-node';
import type { VersionClient } from '../drivers/kubernetes/kube-clients.ts';

/** Recorded JSON as an instance of the client's model class (nested objects stay plain, as the driver only reads fields). */
export function recorded<T extends object>(model: new () => T, json: object): T {
  return Object.assign(new model(), json);
}

/** A node's Ready condition as kubelet (or the node controller) posts it. */
export const readyCondition = (
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
) => ({
  type: 'Ready',
  status,
  reason,
  message,
});
type ReadyCondition = ReturnType<typeof readyCondition>;

/** A node as `kubectl get node NAME -o json` shows it, trimmed. */
export function recordedNode(
  name: string,
  os: 'linux' | 'windows',
  ip: string,
  options: {
    controlPlane?: boolean;
    ready?: ReadyCondition;
    cordoned?: boolean;
    noInternalIp?: boolean;
  } = {},
): V1Node {
  const windows = os === 'windows';
  return recorded(V1Node, {
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': os,
        ...(windows ? { 'node.kubernetes.io/windows-build': '10.0.20348' } : {}),
        ...(options.controlPlane === true
          ? {
              'node-role.kubernetes.io/control-plane': '',
              'node.kubernetes.io/exclude-from-external-load-balancers': '',
            }
          : {}),
      },
    },
    spec: {
      podCIDR: `10.244.${ip.split('.')[3]}.0/24`,
      ...(options.cordoned === true ? { unschedulable: true } : {}),
      ...(options.controlPlane === true
        ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }
        : windows
          ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] }
          : {}),
    },
    status: {
      addresses: [
        ...(options.noInternalIp === true ? [] : [{ type: 'InternalIP', address: ip }]),
        { type: 'Hostname', address: name },
      ],
      conditions: [
        {
          type: 'MemoryPressure',
          status: 'False',
          reason: 'KubeletHasSufficientMemory',
          message: 'kubelet has sufficient memory available',
        },
        options.ready ?? readyCondition('True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: windows ? 'containerd://1.7.13' : 'containerd://1.6.20',
        kernelVersion: windows ? '10.0.20348.2582' : '6.1.0-18-amd64',
        kubeProxyVersion: 'v1.30.4',
        kubeletVersion: 'v1.30.4',
        machineID: '',
        operatingSystem: os,
        osImage: windows ? 'Windows Server 2022 Datacenter' : 'Debian GNU/Linux 12 (bookworm)',
        systemUUID: '',
      },
    },
  });
}

export const NODES = {
  cp1: () => recordedNode('cp1', 'linux', '192.168.200.10', { controlPlane: true }),
  lin1: () => recordedNode('lin1', 'linux', '192.168.200.11'),
  win1: () => recordedNode('win1', 'windows', '192.168.200.12'),
};

/** The status of a pod that kubelet has started and whose readiness probe passes. */
export function runningStatus(podIP: string): V1PodStatus {
  return recorded(V1PodStatus, {
    phase: 'Running',
    podIP,
    podIPs: [{ ip: podIP }],
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Initialized', status: 'True' },
      { type: 'ContainersReady', status: 'True' },
      { type: 'Ready', status: 'True' },
    ],
    containerStatuses: [
      {
        name: 'netexec',
        ready: true,
        restartCount: 0,
        image: '',
        imageID: '',
        state: { running: {} },
      },
    ],
  });
}

/** A pod whose image cannot be pulled (kubelet's recorded waiting reason and message). */
export function imagePullBackOff(image: string): V1PodStatus {
  return recorded(V1PodStatus, {
    phase: 'Pending',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      {
        type: 'Ready',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [netexec]',
      },
    ],
    containerStatuses: [
      {
        name: 'netexec',
        ready: false,
        restartCount: 0,
        image,
        imageID: '',
        state: {
          waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` },
        },
      },
    ],
  });
}

/** A pod whose sandbox never comes up: the CNI error shows only in an event. */
export const containerCreating = recorded(V1PodStatus, {
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'True' }],
  containerStatuses: [
    {
      name: 'netexec',
      ready: false,
      restartCount: 0,
      image: '',
      imageID: '',
      state: { waiting: { reason: 'ContainerCreating' } },
    },
  ],
});

/** A Warning event on a pod, as `kubectl get events -o json` lists it. */
export function warningEvent(pod: string, reason: string, message: string): CoreV1Event {
  return recorded(CoreV1Event, {
    metadata: { name: `${pod}.17f3a` },
    involvedObject: { kind: 'Pod', name: pod },
    type: 'Warning',
    reason,
    message,
    lastTimestamp: new Date('2025-01-01T00:00:10Z'),
  });
}

export const fakeVersion: VersionClient = {
  getCode: () =>
    Promise.resolve(
      recorded(VersionInfo, {
        major: '1',
        minor: '30',
        gitVersion: 'v1.30.4',
        gitCommit: 'a51b3b711150f57ffc1f526a640ec058514ed596',
        gitTreeState: 'clean',
        buildDate: '2024-08-14T19:29:03Z',
        goVersion: 'go1.22.5',
        compiler: 'gc',
        platform: 'linux/amd64',
      }),
    ),
};

/** The V1Status frame kubelet sends on the exec status channel when the command exits with `code`. */
export function exitStatus(code: number): V1Status {
  if (code === 0) return recorded(V1Status, { metadata: {}, status: 'Success' });
  return recorded(V1Status, {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command, exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  });
}
