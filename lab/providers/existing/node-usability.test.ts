import { expect } from 'chai';
import { parseSelector, parseTolerations } from './node-filter.ts';
import { chooseNodes, leftOutBecause, leftOutText, type NodeObject } from './node-usability.ts';

type Taint = NonNullable<NonNullable<NodeObject['spec']>['taints']>[number];

/** A Ready node as kubelet reports one (hand-written: only the fields the choice reads). */
function node(
  name: string,
  os: 'linux' | 'windows',
  extra: {
    taints?: Taint[];
    labels?: Record<string, string>;
    unschedulable?: boolean;
    ready?: 'True' | 'False' | 'Unknown';
    runtime?: string;
    kubelet?: string;
  } = {},
): NodeObject {
  return {
    metadata: { name, labels: { 'kubernetes.io/os': os, ...extra.labels } },
    spec: {
      ...(extra.taints === undefined ? {} : { taints: extra.taints }),
      ...(extra.unschedulable === undefined ? {} : { unschedulable: extra.unschedulable }),
    },
    status: {
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      conditions: [
        {
          type: 'Ready',
          status: extra.ready ?? 'True',
          reason: extra.ready === 'False' ? 'KubeletNotReady' : 'KubeletReady',
          message: extra.ready === 'False' ? 'container runtime network not ready' : '',
        },
      ],
      nodeInfo: {
        containerRuntimeVersion: extra.runtime ?? 'containerd://1.7.13',
        kubeletVersion: extra.kubelet ?? 'v1.30.4',
      },
    },
  };
}

describe('which nodes a run uses', () => {
  it('leaves out a node whose taint the pods do not tolerate, naming the taint and TOLERATIONS', () => {
    const lin2 = node('lin2', 'linux', {
      taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }],
    });
    const { usable, leftOut } = chooseNodes([node('lin1', 'linux'), lin2], {});
    expect(usable.map((n) => n.metadata?.name)).to.deep.equal(['lin1']);
    expect(leftOut.map(leftOutText)).to.deep.equal([
      "lin2 has taint dedicated=infra:NoSchedule, which the suite's pods do not tolerate (TOLERATIONS to add one)",
    ]);
    // …and uses it once TOLERATIONS tolerates it.
    expect(
      leftOutBecause(lin2, { tolerations: parseTolerations('dedicated=infra:NoSchedule') }),
    ).to.equal(undefined);
  });

  it("leaves out AKS's system pool (CriticalAddonsOnly=true:NoSchedule) unless TOLERATIONS names it", () => {
    const system = node('aks-system-0', 'linux', {
      taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }],
    });
    expect(leftOutBecause(system, {})).to.contain('CriticalAddonsOnly=true:NoSchedule');
    expect(
      leftOutBecause(system, { tolerations: parseTolerations('CriticalAddonsOnly:NoSchedule') }),
    ).to.equal(undefined);
  });

  it("uses Windows nodes tainted os=windows (sig-windows) and os=Windows (OpenShift's WMCO)", () => {
    for (const value of ['windows', 'Windows']) {
      const win = node('win1', 'windows', { taints: [{ key: 'os', value, effect: 'NoSchedule' }] });
      expect(leftOutBecause(win, {}), value).to.equal(undefined);
    }
    // A Linux pod's tolerations are the Linux ones: an os=windows Linux node is left out.
    const odd = node('lin9', 'linux', {
      taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
    });
    expect(leftOutBecause(odd, {})).to.contain('os=windows:NoSchedule');
  });

  it('ignores PreferNoSchedule; names NoExecute', () => {
    const soft = node('lin1', 'linux', { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] });
    expect(leftOutBecause(soft, {})).to.equal(undefined);
    const hard = node('lin1', 'linux', { taints: [{ key: 'spot', effect: 'NoExecute' }] });
    expect(leftOutBecause(hard, {})).to.contain('spot:NoExecute');
  });

  it('leaves out cordoned and NotReady nodes with what to do', () => {
    const cordoned = node('lin1', 'linux', {
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    });
    expect(leftOutBecause(cordoned, {})).to.equal(
      'is cordoned (spec.unschedulable; kubectl uncordon lin1 to use it)',
    );
    expect(leftOutBecause(node('lin2', 'linux', { ready: 'False' }), {})).to.equal(
      'is not Ready (Ready=False: KubeletNotReady: container runtime network not ready)',
    );
  });

  it('leaves out what NODES and NODE_SELECTOR do not choose, and reports names that match no node', () => {
    const nodes = [
      node('lin1', 'linux', { labels: { pool: 'hybrid' } }),
      node('lin2', 'linux'),
      node('win1', 'windows', { labels: { pool: 'hybrid' } }),
    ];
    const text = 'pool=hybrid';
    const bySelector = chooseNodes(nodes, { selector: { text, terms: parseSelector(text) } });
    expect(bySelector.leftOut.map(leftOutText)).to.deep.equal([
      'lin2 is not selected by NODE_SELECTOR=pool=hybrid',
    ]);
    const byName = chooseNodes(nodes, { names: ['lin1', 'win1', 'win9'] });
    expect(byName.leftOut.map(leftOutText)).to.deep.equal(['lin2 is not in NODES=lin1,win1,win9']);
    expect(byName.unknownNames).to.deep.equal(['win9']);
  });

  it('leaves out Windows nodes that cannot run HostProcess pods (kubelet below 1.23, Docker, containerd below 1.6)', () => {
    expect(leftOutBecause(node('win1', 'windows', { kubelet: 'v1.22.17' }), {})).to.contain(
      'kubelet v1.22.17',
    );
    expect(leftOutBecause(node('win1', 'windows', { runtime: 'docker://20.10.9' }), {})).to.contain(
      'docker://20.10.9',
    );
    expect(
      leftOutBecause(node('win1', 'windows', { runtime: 'containerd://1.5.9' }), {}),
    ).to.contain('containerd 1.5.9');
    // Linux nodes have no HostProcess pod: any runtime will do.
    expect(leftOutBecause(node('lin1', 'linux', { runtime: 'cri-o://1.30.1' }), {})).to.equal(
      undefined,
    );
  });

  it('leaves out a Windows node whose build the Windows image has no variant for, naming both (a container starts only on its own build)', () => {
    const windows = (build: string) =>
      node('win1', 'windows', { labels: { 'node.kubernetes.io/windows-build': build } });
    const image = {
      image: 'registry.k8s.io/e2e-test-images/agnhost:2.52',
      variants: ['10.0.17763.5830', '10.0.20348.2461'],
    };
    expect(leftOutBecause(windows('10.0.20348'), { windowsImage: image })).to.equal(undefined);
    expect(leftOutBecause(windows('10.0.17763'), { windowsImage: image })).to.equal(undefined);
    // Windows Server 2025 (26100): no variant; a build that only starts like one is none either.
    expect(leftOutBecause(windows('10.0.26100'), { windowsImage: image })).to.equal(
      'runs Windows build 10.0.26100, and registry.k8s.io/e2e-test-images/agnhost:2.52 has variants for 10.0.17763.5830, 10.0.20348.2461 only: a Windows container starts only on its own build (AGNHOST_IMAGE_WINDOWS to name an image that has one)',
    );
    expect(
      leftOutBecause(windows('10.0.2034'), { windowsImage: image }),
      'a prefix of a build is not the build',
    ).to.match(/^runs Windows build 10\.0\.2034,/);
    expect(
      leftOutBecause(windows('10.0.20348'), { windowsImage: { image: 'x', variants: [] } }),
    ).to.contain('x has no Windows variant');
    // Not judged: variants unknown, no build label, a Linux node.
    expect(leftOutBecause(windows('10.0.26100'), {})).to.equal(undefined);
    expect(leftOutBecause(node('win1', 'windows'), { windowsImage: image })).to.equal(undefined);
    expect(leftOutBecause(node('lin1', 'linux'), { windowsImage: image })).to.equal(undefined);
  });
});
