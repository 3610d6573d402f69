/**
 * What the Kubernetes driver reads from the environment, each value checked when the suite
 * starts (specs/engine/suite-settings.ts), so a bad one fails the run with its own message
 * before any lab is touched.
 */
import type { Os } from '../../../lab/contracts/cells.ts';
import { contains, isIpv4, parseCidr } from '../../../lab/net/ipv4.ts';
import { positiveIntSetting, SettingError } from '../../model/settings.ts';
import {
  NodeFilterSyntaxError,
  parseNodeNames,
  parseSelector,
  parseTolerations,
  type NodeFilter,
  type Toleration,
} from '../../../lab/providers/existing/node-filter.ts';
import { clusterIntent, type ClusterIntent } from './cluster-intent.ts';

export const DEFAULT_IMAGE_REPO = 'registry.k8s.io/e2e-test-images';
export const DEFAULT_AGNHOST_TAG = '2.52';
export const DEFAULT_ECHO_PORT = 8099;
/** How long cleanup waits for the run namespace to be gone, as upstream e2e does. */
const NAMESPACE_GONE_DEFAULT_MS = 300_000;
const DEPLOY_DEFAULT_MS = 300_000;
/**
 * How long the images may take to pull before the run's clock starts: a first pull of a Windows
 * image on a fresh node takes 12–15 minutes; sig-windows gives its pre-pull 30
 * (https://github.com/kubernetes/kubernetes/pull/105481).
 */
const PREPULL_DEFAULT_MS = 1_800_000;

export interface KubernetesSettings {
  /** AGNHOST_IMAGE: the agnhost image, over the lab's own and the default. */
  agnhostImage: string | undefined;
  /** AGNHOST_IMAGE_LINUX / AGNHOST_IMAGE_WINDOWS: one OS's agnhost image, over AGNHOST_IMAGE. */
  agnhostImageOf: Partial<Record<Os, string>>;
  /**
   * IMAGE_PULL_SECRET=NAMESPACE/NAME: a docker-registry Secret the run copies into its namespace
   * and names in every pod's imagePullSecrets.
   */
  imagePullSecret: { namespace: string; name: string } | undefined;
  /** PREPULL_TIMEOUT_MS: how long every node may take to pull the images; default 30 min. */
  prePullTimeoutMs: number;
  /** NODE_SELECTOR and NODES: the nodes the run may use (others are left out, their cells skipped). */
  nodeFilter: NodeFilter;
  /** TOLERATIONS: taints every suite pod tolerates beyond the control-plane and Windows ones. */
  tolerations: Toleration[];
  /** IMAGE_REPO/agnhost:AGNHOST_TAG: the image when neither AGNHOST_IMAGE nor the lab names one. */
  defaultImage: string;
  /**
   * EVIDENCE_NODE_IMAGE: the image of path evidence's Linux node shell pods on a cluster the
   * harness did not make (it needs nsenter, and an entrypoint sleeping on `pause`); default the
   * run's agnhost image, which Windows node shell pods always run.
   */
  evidenceImage: string | undefined;
  /** EXTERNAL_ECHO_ADDRESS: where the outbound-NAT echo listens, over the lab's external address. */
  echoAddress: string | undefined;
  /** EXTERNAL_ECHO_PORT (0: any free port); default 8099. */
  echoPort: number;
  /** HYBRID_KEEP_RUN_NAMESPACE=1: leave the run namespace for the nightly collector. */
  keepRunNamespace: boolean;
  /** deploy()'s wait for Ready pods: 80 % of DEPLOY_TIMEOUT_MS, under mocha's hook timeout. */
  podsReadyTimeoutMs: number;
  /**
   * CHURN_SETTLE_MS: how long after a churn step every node's rules have to converge; default
   * 30 s, kube-proxy's full resync period.
   */
  churnSettleMs: number;
  /** cleanup()'s wait for the run namespace to go (CLEANUP_TIMEOUT_MS); a longer one is a warning. */
  namespaceGoneTimeoutMs: number;
  /** WINDOWS_DSR, OUTBOUND_NAT: what a cluster the harness did not make intends (cluster-intent.ts). */
  intent: ClusterIntent;
}

const IMAGE_REF = /^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)+(:[A-Za-z0-9._-]+)?(@sha256:[a-f0-9]+)?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const REPO = /^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*\/?$/;

/** A trimmed value, '' as unset. */
function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A value that must match `pattern`, else a SettingError naming the setting and an example. */
function matching(
  env: NodeJS.ProcessEnv,
  name: string,
  pattern: RegExp,
  example: string,
): string | undefined {
  const value = text(env, name);
  if (value !== undefined && !pattern.test(value)) {
    throw new SettingError(`${name} must look like ${example}, got "${value}"`);
  }
  return value;
}

/**
 * Why the API server refuses `ip` as an Endpoints address (the echo's Service names it), or
 * undefined: Kubernetes' validation of endpoint IPs rejects the unspecified address, loopback,
 * link-local and link-local multicast ("may not be in the loopback range (127.0.0.0/8)").
 */
function notAnEndpointAddress(ip: string): string | undefined {
  const special: [string, string][] = [
    ['0.0.0.0/32', 'the unspecified address'],
    ['127.0.0.0/8', 'in the loopback range (127.0.0.0/8)'],
    ['169.254.0.0/16', 'in the link-local range (169.254.0.0/16)'],
    ['224.0.0.0/24', 'in the link-local multicast range (224.0.0.0/24)'],
  ];
  const hit = special.find(([cidr]) => contains(parseCidr(cidr)!, ip));
  return hit?.[1];
}

/** A value parsed by `parse`; its syntax error becomes a SettingError naming the setting. */
function parsed<T>(
  env: NodeJS.ProcessEnv,
  name: string,
  example: string,
  parse: (text: string) => T,
): T | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (error) {
    if (!(error instanceof NodeFilterSyntaxError)) throw error;
    throw new SettingError(`${name} must look like ${example}: ${error.message}`);
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** IMAGE_PULL_SECRET=NAMESPACE/NAME. */
function pullSecret(env: NodeJS.ProcessEnv): KubernetesSettings['imagePullSecret'] {
  const value = text(env, 'IMAGE_PULL_SECRET');
  if (value === undefined) return undefined;
  const [namespace = '', name = '', ...rest] = value.split('/');
  if (rest.length > 0 || !DNS_LABEL.test(namespace) || !SECRET_NAME.test(name)) {
    throw new SettingError(
      `IMAGE_PULL_SECRET must be NAMESPACE/NAME of a docker-registry Secret, like default/regcred, got "${value}"`,
    );
  }
  return { namespace, name };
}

/** The driver's settings from `env`; throws SettingError naming the setting and what it allows. */
export function kubernetesSettings(env: NodeJS.ProcessEnv): KubernetesSettings {
  const repo = matching(env, 'IMAGE_REPO', REPO, DEFAULT_IMAGE_REPO) ?? DEFAULT_IMAGE_REPO;
  const tag = matching(env, 'AGNHOST_TAG', TAG, DEFAULT_AGNHOST_TAG) ?? DEFAULT_AGNHOST_TAG;
  const echoAddress = text(env, 'EXTERNAL_ECHO_ADDRESS');
  if (echoAddress !== undefined && !isIpv4(echoAddress)) {
    throw new SettingError(
      `EXTERNAL_ECHO_ADDRESS must be an IPv4 address of this host, got "${echoAddress}"`,
    );
  }
  const refused = echoAddress === undefined ? undefined : notAnEndpointAddress(echoAddress);
  if (refused !== undefined)
    throw new SettingError(
      `EXTERNAL_ECHO_ADDRESS must be an address Kubernetes accepts in an Endpoints object, got "${echoAddress}" (${refused})`,
    );
  const port = text(env, 'EXTERNAL_ECHO_PORT');
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) <= 65535)) {
    throw new SettingError(`EXTERNAL_ECHO_PORT must be a port number (0-65535), got "${port}"`);
  }
  const keep = text(env, 'HYBRID_KEEP_RUN_NAMESPACE') ?? '0';
  if (keep !== '0' && keep !== '1') {
    throw new SettingError(`HYBRID_KEEP_RUN_NAMESPACE must be 1 or 0, got "${keep}"`);
  }
  const selector = text(env, 'NODE_SELECTOR');
  const terms = parsed(env, 'NODE_SELECTOR', 'pool=hybrid,kubernetes.io/arch=amd64', parseSelector);
  const names = parsed(env, 'NODES', 'lin1,win1', parseNodeNames);
  const example = `${DEFAULT_IMAGE_REPO}/agnhost:2.52`;
  const imageOf: Partial<Record<Os, string>> = {};
  for (const os of ['linux', 'windows'] as const) {
    const image = matching(env, `AGNHOST_IMAGE_${os.toUpperCase()}`, IMAGE_REF, example);
    if (image !== undefined) imageOf[os] = image;
  }
  return {
    agnhostImage: matching(env, 'AGNHOST_IMAGE', IMAGE_REF, example),
    agnhostImageOf: imageOf,
    imagePullSecret: pullSecret(env),
    prePullTimeoutMs: positiveIntSetting(env, 'PREPULL_TIMEOUT_MS', PREPULL_DEFAULT_MS),
    nodeFilter: {
      ...(selector === undefined || terms === undefined
        ? {}
        : { selector: { text: selector, terms } }),
      ...(names === undefined ? {} : { names }),
    },
    tolerations:
      parsed(
        env,
        'TOLERATIONS',
        'CriticalAddonsOnly=true:NoSchedule,spot:NoExecute',
        parseTolerations,
      ) ?? [],
    defaultImage: `${repo.replace(/\/+$/, '')}/agnhost:${tag}`,
    evidenceImage: matching(
      env,
      'EVIDENCE_NODE_IMAGE',
      IMAGE_REF,
      `${DEFAULT_IMAGE_REPO}/agnhost:2.52`,
    ),
    echoAddress,
    echoPort: port === undefined ? DEFAULT_ECHO_PORT : Number(port),
    keepRunNamespace: keep === '1',
    podsReadyTimeoutMs: 0.8 * positiveIntSetting(env, 'DEPLOY_TIMEOUT_MS', DEPLOY_DEFAULT_MS),
    churnSettleMs: positiveIntSetting(env, 'CHURN_SETTLE_MS', 30_000),
    namespaceGoneTimeoutMs: positiveIntSetting(
      env,
      'CLEANUP_TIMEOUT_MS',
      NAMESPACE_GONE_DEFAULT_MS,
    ),
    intent: clusterIntent(env),
  };
}

/**
 * The agnhost image a run deploys on each OS: AGNHOST_IMAGE_LINUX / AGNHOST_IMAGE_WINDOWS, else
 * AGNHOST_IMAGE (an image with both OSes' variants), else the lab's own for that OS, else
 * IMAGE_REPO/AGNHOST_TAG.
 */
export function agnhostImages(
  settings: KubernetesSettings,
  lab: Partial<Record<Os, string>> = {},
): Record<Os, string> {
  const pick = (os: Os) =>
    settings.agnhostImageOf[os] ?? settings.agnhostImage ?? lab[os] ?? settings.defaultImage;
  return { linux: pick('linux'), windows: pick('windows') };
}
