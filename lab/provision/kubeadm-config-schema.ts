/**
 * The documented fields of the kubeadm config documents this harness writes, as strict zod
 * schemas: a misspelt or misplaced field fails. Sources (field names and types):
 * https://v1-21.docs.kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta2/ (kubeadm ≤ 1.21),
 * https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta3/ (kubeadm 1.22–1.30),
 * https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/ (kubeadm ≥ 1.31),
 * https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/ and
 * https://kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1/.
 * Only the documented fields of each type that can matter here are listed; kubeadm ignores none.
 */
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { isIpv4, parseCidr } from '../net/ipv4.ts';

const ip = z.string().refine(isIpv4, { error: 'expected an IPv4 address' });
const cidr = z.string().refine((v) => parseCidr(v) !== undefined, { error: 'expected a CIDR' });
const int32 = z
  .int()
  .min(0)
  .max(2 ** 31 - 1);

/** v1beta2 and v1beta3: `map[string]string`; v1beta4: `[]Arg{name, value}`. */
const argsMap = z.record(z.string(), z.string());
const argsV1beta4 = z.array(z.strictObject({ name: z.string().min(1), value: z.string() }));

type KubeadmApi = 'kubeadm.k8s.io/v1beta2' | 'kubeadm.k8s.io/v1beta3' | 'kubeadm.k8s.io/v1beta4';
const KUBEADM_APIS: readonly KubeadmApi[] = [
  'kubeadm.k8s.io/v1beta2',
  'kubeadm.k8s.io/v1beta3',
  'kubeadm.k8s.io/v1beta4',
];

function kubeadmDocs(api: KubeadmApi) {
  const args = api === 'kubeadm.k8s.io/v1beta4' ? argsV1beta4 : argsMap;
  const since3 = api !== 'kubeadm.k8s.io/v1beta2';
  const taint = z.strictObject({
    key: z.string(),
    value: z.string().optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  });
  const nodeRegistration = z.strictObject({
    name: z.string().optional(),
    criSocket: z
      .string()
      .regex(/^(unix|npipe):\/\//)
      .optional(),
    taints: z.array(taint).optional(),
    kubeletExtraArgs: args.optional(),
    ignorePreflightErrors: z.array(z.string()).optional(),
    ...(since3 ? { imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional() } : {}),
  });
  const component = z.strictObject({ extraArgs: args.optional() });
  const init = z.strictObject({
    apiVersion: z.literal(api),
    kind: z.literal('InitConfiguration'),
    bootstrapTokens: z.array(z.unknown()).optional(),
    nodeRegistration: nodeRegistration.optional(),
    localAPIEndpoint: z
      .strictObject({ advertiseAddress: ip, bindPort: int32.optional() })
      .optional(),
    certificateKey: z.string().optional(),
    ...(since3 ? { skipPhases: z.array(z.string()).optional() } : {}),
  });
  const cluster = z.strictObject({
    apiVersion: z.literal(api),
    kind: z.literal('ClusterConfiguration'),
    etcd: z.unknown().optional(),
    networking: z
      .strictObject({
        serviceSubnet: cidr.optional(),
        podSubnet: cidr.optional(),
        dnsDomain: z.string().optional(),
      })
      .optional(),
    kubernetesVersion: z
      .string()
      .regex(/^v\d+\.\d+\.\d+$/)
      .optional(),
    controlPlaneEndpoint: z
      .string()
      .regex(/^[^:\s]+:\d+$/)
      .optional(),
    apiServer: z
      .strictObject({ extraArgs: args.optional(), certSANs: z.array(z.string()).optional() })
      .optional(),
    controllerManager: component.optional(),
    scheduler: component.optional(),
    dns: z.unknown().optional(),
    certificatesDir: z.string().optional(),
    imageRepository: z.string().optional(),
    featureGates: z.record(z.string(), z.boolean()).optional(),
    clusterName: z.string().optional(),
  });
  const join = z.strictObject({
    apiVersion: z.literal(api),
    kind: z.literal('JoinConfiguration'),
    caCertPath: z.string().optional(),
    discovery: z.strictObject({
      bootstrapToken: z
        .strictObject({
          token: z.string(),
          apiServerEndpoint: z.string().regex(/^[^:\s]+:\d+$/),
          caCertHashes: z.array(z.string()).optional(),
          unsafeSkipCAVerification: z.boolean().optional(),
        })
        .optional(),
      file: z.unknown().optional(),
      tlsBootstrapToken: z.string().optional(),
      timeout: z.string().optional(),
    }),
    nodeRegistration: nodeRegistration.optional(),
    controlPlane: z.unknown().optional(),
    ...(since3 ? { skipPhases: z.array(z.string()).optional() } : {}),
  });
  return { init, cluster, join };
}

const kubelet = z.strictObject({
  apiVersion: z.literal('kubelet.config.k8s.io/v1beta1'),
  kind: z.literal('KubeletConfiguration'),
  cgroupDriver: z.enum(['systemd', 'cgroupfs']).optional(),
  clusterDNS: z.array(ip).optional(),
  clusterDomain: z.string().optional(),
  failSwapOn: z.boolean().optional(),
});

const kubeProxy = z.strictObject({
  apiVersion: z.literal('kubeproxy.config.k8s.io/v1alpha1'),
  kind: z.literal('KubeProxyConfiguration'),
  mode: z.enum(['iptables', 'ipvs', 'nftables', 'kernelspace', '']).optional(),
  clusterCIDR: cidr.optional(),
  conntrack: z
    .strictObject({
      maxPerCore: int32.optional(),
      min: int32.optional(),
      tcpEstablishedTimeout: z.string().optional(),
      tcpCloseWaitTimeout: z.string().optional(),
    })
    .optional(),
});

export interface ParsedKubeadmConfig {
  init: z.output<ReturnType<typeof kubeadmDocs>['init']>;
  cluster: z.output<ReturnType<typeof kubeadmDocs>['cluster']>;
  kubelet: z.output<typeof kubelet>;
  kubeProxy: z.output<typeof kubeProxy> | undefined;
}

/** Parses a kubeadm config YAML stream and checks every document against its documented fields. */
export function parseKubeadmConfig(text: string): ParsedKubeadmConfig {
  const docs = parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new Error(`YAML: ${d.errors[0]?.message ?? ''}`);
    return d.toJS() as { apiVersion?: unknown; kind?: unknown };
  });
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const unknownKinds = docs.filter(
    (d) =>
      ![
        'InitConfiguration',
        'ClusterConfiguration',
        'KubeletConfiguration',
        'KubeProxyConfiguration',
      ].includes(String(d.kind)),
  );
  if (unknownKinds.length > 0) throw new Error(`unexpected kind ${String(unknownKinds[0]?.kind)}`);
  const one = (kind: string) => {
    const found = byKind(kind);
    if (found.length !== 1) throw new Error(`expected exactly one ${kind}, found ${found.length}`);
    return found[0];
  };
  const initDoc = one('InitConfiguration');
  const schemas = kubeadmDocs(apiOf(initDoc));
  const proxyDocs = byKind('KubeProxyConfiguration');
  return {
    init: schemas.init.parse(initDoc),
    cluster: schemas.cluster.parse(one('ClusterConfiguration')),
    kubelet: kubelet.parse(one('KubeletConfiguration')),
    kubeProxy: proxyDocs.length === 0 ? undefined : kubeProxy.parse(proxyDocs[0]),
  };
}

function apiOf(doc: { apiVersion?: unknown } | undefined): KubeadmApi {
  const api = KUBEADM_APIS.find((a) => a === doc?.apiVersion);
  if (api === undefined)
    throw new Error(`unsupported kubeadm apiVersion ${String(doc?.apiVersion)}`);
  return api;
}

/** Parses a worker's JoinConfiguration against the documented fields of its apiVersion. */
export function parseKubeadmJoinConfig(
  text: string,
): z.output<ReturnType<typeof kubeadmDocs>['join']> {
  const docs = parseAllDocuments(text);
  if (docs.length !== 1) throw new Error(`expected one JoinConfiguration, found ${docs.length}`);
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new Error(`YAML: ${doc.errors[0]?.message ?? ''}`);
  const data = doc.toJS() as { apiVersion?: unknown };
  return kubeadmDocs(apiOf(data)).join.parse(data);
}
