import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { HOST_NETEXEC_PORTS } from '../cluster/runtime/workload-programs.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { REPO_ROOT } from '../testing/windows-scripts.ts';
import { componentVersions } from './component-versions.ts';
import { windowsNodeJson } from './node-config.ts';
import { windowsHostListeners, type HostListener } from './windows-host-listeners.ts';

const covers = (listeners: HostListener[], protocol: string, port: number) =>
  listeners.some((l) => {
    if (l.protocol !== protocol) return false;
    const [first, last = first] = l.port.split('-').map(Number);
    return port >= first! && port <= last!;
  });

describe('Windows firewall: every host listener is opened (facts catalogue: windows-firewall-inbound)', () => {
  it("node.json's firewall rules are the listener list, on both backends", () => {
    for (const backend of ['vxlan', 'host-gw'] as const) {
      const plan = kubeadmPlan({ backend });
      const win = plan.nodes.find((n) => n.os === 'windows')!;
      const json = JSON.parse(
        windowsNodeJson(plan, win, componentVersions(plan), { kind: 'none' }, []),
      ) as { HL_FIREWALL_RULES: unknown };
      expect(json.HL_FIREWALL_RULES).to.deep.equal(windowsHostListeners(plan));
      expect(covers(windowsHostListeners(plan), 'UDP', plan.cni.port)).to.equal(
        backend === 'vxlan',
      );
    }
  });

  it("the host-network netexec's ports (HTTP and UDP) are opened, from the same constant", () => {
    const listeners = windowsHostListeners(kubeadmPlan());
    const manifest = readFileSync(
      join(REPO_ROOT, 'manifests/suite/host-netexec-pod-windows.yaml'),
      'utf8',
    );
    const http = Number(/--http-port=(\d+)/.exec(manifest)?.[1]);
    const udp = Number(/--udp-port=(\d+)/.exec(manifest)?.[1]);
    expect([http, udp]).to.deep.equal([HOST_NETEXEC_PORTS.http, HOST_NETEXEC_PORTS.udp]);
    expect(covers(listeners, 'TCP', http), `TCP ${http}`).to.equal(true);
    expect(covers(listeners, 'UDP', udp), `UDP ${udp}`).to.equal(true);
  });

  it('configure-firewall.ps1 opens what node.json lists and names no port of its own', () => {
    const script = readFileSync(
      join(REPO_ROOT, 'vagrant/scripts/windows/configure-firewall.ps1'),
      'utf8',
    );
    expect(script).to.include('$Hl.HL_FIREWALL_RULES');
    const code = script
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    expect(code.match(/\b\d{2,5}\b/g) ?? [], 'port numbers in the script').to.deep.equal([]);
  });
});
