// The API server is a fake. The SelfSubjectAccessReview answers are hand-written in the shape of
// the API reference (status.allowed, status.reason), not recorded: no live server runs here.
import { expect } from 'chai';
import type { V1SelfSubjectAccessReview } from '@kubernetes/client-node';
import { clusterPreflight, versionFindings, type PreflightClients } from './cluster-preflight.ts';
import { permissionText, suiteRoles } from './suite-roles.ts';
import type { NodeObject } from './node-usability.ts';

const NODE = (name: string, os: string, extra: Partial<NodeObject['spec']> = {}): NodeObject => ({
  metadata: { name, labels: { 'kubernetes.io/os': os } },
  spec: extra,
  status: {
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    conditions: [{ type: 'Ready', status: 'True' }],
    nodeInfo: { kubeletVersion: 'v1.30.4', containerRuntimeVersion: 'containerd://1.7.13' },
  },
});

/** A fake API: allows every review except `deny` (as `verb resource`), and records what it was asked. */
function fakeApi(deny: string[], nodes: NodeObject[], version = 'v1.30.4') {
  const asked: string[] = [];
  const clients = {
    reviewer: {
      createSelfSubjectAccessReview: ({ body }: { body: V1SelfSubjectAccessReview }) => {
        const a = body.spec.resourceAttributes!;
        const text = `${a.verb} ${a.resource}${a.subresource === undefined ? '' : `/${a.subresource}`}`;
        asked.push(`${text}${a.namespace === undefined ? '' : ` -n ${a.namespace}`}`);
        const allowed = !deny.includes(text);
        return Promise.resolve({
          apiVersion: body.apiVersion,
          kind: body.kind,
          spec: body.spec,
          status: allowed
            ? {
                allowed,
                reason:
                  'RBAC: allowed by ClusterRoleBinding "suite" of ClusterRole "hybrid-lab-suite"',
              }
            : { allowed },
        });
      },
    },
    core: { listNode: () => Promise.resolve({ items: nodes }) },
    version: { getCode: () => Promise.resolve({ gitVersion: version }) },
  } as unknown as PreflightClients;
  return { clients, asked };
}

describe('the preflight of a cluster the harness did not build', () => {
  const options = { namespace: 'hybrid-lab-preflight', choice: {} };

  it('asks for every rule of the suite role, namespaced ones in the run namespace, and passes when all are granted', async () => {
    const { clients, asked } = fakeApi([], [NODE('lin1', 'linux')]);
    const findings = await clusterPreflight(clients, options);
    expect(findings.problems).to.deep.equal([]);
    expect(asked).to.have.length(suiteRoles()['hybrid-lab-suite'].length);
    expect(asked).to.include('create endpoints -n hybrid-lab-preflight');
    expect(asked).to.include('list nodes');
    expect(asked).to.include('create namespaces');
    expect(asked.some((a) => a.includes('secrets'))).to.equal(false);
  });

  it('names each verb it lacks and how to grant it (a namespace admin since 1.22: no Endpoints create)', async () => {
    const { clients } = fakeApi(['create endpoints'], [NODE('lin1', 'linux')]);
    const { problems } = await clusterPreflight(clients, options);
    expect(problems).to.have.length(1);
    expect(problems[0]!.what).to.equal(
      'this identity may not create endpoints in the run namespace: ClusterRole hybrid-lab-suite grants it',
    );
    expect(problems[0]!.fix).to.contain('kubectl apply -f manifests/rbac/hybrid-lab-suite.yaml');
    expect(problems[0]!.fix).to.contain('--clusterrole=hybrid-lab-suite');
  });

  it('asks for the pull-secret role only with IMAGE_PULL_SECRET', async () => {
    const { clients, asked } = fakeApi(['get secrets'], [NODE('lin1', 'linux')]);
    const { problems } = await clusterPreflight(clients, { ...options, pullSecret: true });
    expect(asked).to.include('create secrets -n hybrid-lab-preflight');
    expect(problems.map((p) => p.what)).to.deep.equal([
      'this identity may not get secrets in the run namespace: ClusterRole hybrid-lab-pull-secret grants it',
    ]);
  });

  it('reports the nodes it leaves out, and refuses when none is left or NODES names a stranger', async () => {
    const tainted = NODE('aks-system-0', 'linux', {
      taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }],
    });
    const { clients } = fakeApi([], [tainted, NODE('win1', 'windows')]);
    const findings = await clusterPreflight(clients, options);
    expect(findings.problems).to.deep.equal([]);
    expect(findings.notes).to.deep.equal([
      "left out: aks-system-0 has taint CriticalAddonsOnly=true:NoSchedule, which the suite's pods do not tolerate (TOLERATIONS to add one)",
    ]);
    const none = await clusterPreflight(fakeApi([], [tainted]).clients, {
      ...options,
      choice: { names: ['aks-system-0', 'win9'] },
    });
    expect(none.problems.map((p) => p.what)).to.deep.equal([
      'NODES names win9, which the cluster does not have',
      "the cluster has no node the suite can use: aks-system-0 has taint CriticalAddonsOnly=true:NoSchedule, which the suite's pods do not tolerate (TOLERATIONS to add one)",
    ]);
  });

  it('weighs the API version against the fields the run uses', () => {
    expect(versionFindings('v1.30.4')).to.deep.equal({ problems: [], notes: [] });
    const old = versionFindings('v1.20.2');
    expect(old.problems).to.deep.equal([]);
    expect(old.notes).to.have.length(2);
    expect(old.notes[0]).to.contain('internalTrafficPolicy');
    expect(versionFindings('v1.12.0').problems[0]!.what).to.contain('dryRun=All');
  });

  it('names permissions as kubectl auth can-i takes them', () => {
    expect(permissionText({ group: '', resource: 'pods/exec', verb: 'create' })).to.equal(
      'create pods/exec',
    );
  });
});
