/**
 * Which CNI a cluster runs, read off its system pods' names (a DaemonSet's pods are named
 * `<daemonset>-<suffix>`). Where none is recognised the CNI is unknown: nothing is assumed.
 */

/** The namespaces whose pods tell: kube-system, flannel's own and the Calico operator's. */
export const CNI_NAMESPACES = ['kube-system', 'kube-flannel', 'calico-system'] as const;
export type CniNamespace = (typeof CNI_NAMESPACES)[number];

interface CniMarker {
  name: string;
  namespaces: readonly CniNamespace[];
  pods: RegExp;
}

/**
 * Pod-network CNIs first: a cloud's own (which may run Calico or Cilium beside it for network
 * policy, as AKS runs calico-node in kube-system) comes before the one it runs beside.
 */
const MARKERS: readonly CniMarker[] = [
  // AKS: the azure-cns DaemonSet (azure-cns-win on Windows nodes) and azure-cni, which installs
  // the azure-vnet plugin (github.com/Azure/azure-container-networking, cns/azure-cns.yaml).
  // Not azure-ip-masq-agent: AKS runs it with kubenet too.
  { name: 'azure-cni', namespaces: ['kube-system'], pods: /^azure-(cns|cni)-/ },
  // EKS: the aws-node DaemonSet (github.com/aws/amazon-vpc-cni-k8s, config/master/aws-k8s-cni.yaml).
  { name: 'amazon-vpc-cni (aws-node)', namespaces: ['kube-system'], pods: /^aws-node-/ },
  { name: 'cilium', namespaces: ['kube-system'], pods: /^cilium-/ },
  // Calico: installed by the Tigera operator in calico-system, by manifest in kube-system.
  { name: 'calico', namespaces: ['calico-system', 'kube-system'], pods: /^calico-node-/ },
  { name: 'antrea', namespaces: ['kube-system'], pods: /^antrea-agent-/ },
  { name: 'canal', namespaces: ['kube-system'], pods: /^canal-/ },
  { name: 'flannel', namespaces: ['kube-flannel', 'kube-system'], pods: /^kube-flannel-/ },
  { name: 'weave', namespaces: ['kube-system'], pods: /^weave-net-/ },
  { name: 'kube-router', namespaces: ['kube-system'], pods: /^kube-router-/ },
];

/** Every CNI whose pods run, the pod network's first (`azure-cni, calico`); undefined: none known. */
export function cniOf(pods: Partial<Record<CniNamespace, readonly string[]>>): string | undefined {
  const found = MARKERS.filter((m) =>
    m.namespaces.some((ns) => (pods[ns] ?? []).some((name) => m.pods.test(name))),
  ).map((m) => m.name);
  return found.length === 0 ? undefined : found.join(', ');
}
