/**
 * Every port on which a process of a Windows node listens for other hosts. Windows Firewall blocks
 * inbound traffic by default, and a HostProcess container's listener is an ordinary host process,
 * so configure-firewall.ps1 opens exactly these (from node.json's HL_FIREWALL_RULES, written from
 * this list): the facts catalogue's `windows-firewall-inbound`.
 */
import { HOST_NETEXEC_PORTS } from '../cluster/runtime/workload-programs.ts';
import type { LabPlan } from '../plan/lab-plan.ts';

export interface HostListener {
  /** The firewall rule is `hybrid-lab-<name>`. */
  name: string;
  /** Who listens, for the rule's display name. */
  what: string;
  protocol: 'TCP' | 'UDP';
  /** One port, or a range `first-last`. */
  port: string;
}

/** kubelet's API and kube-proxy's health check: their default ports (kubernetes.io, Ports and Protocols). */
export const KUBELET_API_PORT = 10250;
export const KUBE_PROXY_HEALTH_PORT = 10256;

/** The listeners of a Windows node of `plan`, in a stable order. */
export function windowsHostListeners(plan: LabPlan): HostListener[] {
  const { min, max } = plan.kubernetes.nodePortRange;
  return [
    { name: 'kubelet', what: 'kubelet API', protocol: 'TCP', port: String(KUBELET_API_PORT) },
    {
      name: 'kube-proxy-health',
      what: 'kube-proxy health',
      protocol: 'TCP',
      port: String(KUBE_PROXY_HEALTH_PORT),
    },
    { name: 'nodeports-tcp', what: 'NodePorts (TCP)', protocol: 'TCP', port: `${min}-${max}` },
    { name: 'nodeports-udp', what: 'NodePorts (UDP)', protocol: 'UDP', port: `${min}-${max}` },
    ...(plan.cni.backend === 'vxlan'
      ? [
          {
            name: 'vxlan',
            what: 'flannel VXLAN',
            protocol: 'UDP' as const,
            port: String(plan.cni.port),
          },
        ]
      : []),
    {
      name: 'host-netexec-http',
      what: "the suite's host-network netexec (HTTP)",
      protocol: 'TCP',
      port: String(HOST_NETEXEC_PORTS.http),
    },
    {
      name: 'host-netexec-udp',
      what: "the suite's host-network netexec (UDP)",
      protocol: 'UDP',
      port: String(HOST_NETEXEC_PORTS.udp),
    },
  ];
}
