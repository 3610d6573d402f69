/** Integration: every catalogue fault applied to and healed on a real netns lab, healed in-process and by `lab heal` from another process. */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ExecaRunner } from '../exec/execa-runner.ts';
import { silentLogger } from '../log/logger.ts';
import type { ProbeReply } from '../cluster/emulated-cluster.ts';
import { vxlanDevice } from '../cluster/dataplane/names.ts';
import { FAULT_CATALOGUE, findFault } from './fault-catalogue.ts';
import { breakFault, healFaults } from './fault-engine.ts';
import { resolveTargets } from './fault-targets.ts';
import {
  deployWorkloads,
  faultSkipReason,
  startTestLab,
  type TestLab,
  type TestWorkloads,
} from '../testing/fault-test-lab.ts';
import { skipIf } from '../testing/skip.ts';
import { join } from 'node:path';
import { heldDir } from '../cluster/dataplane/namespace-cleanup.ts';
import { EmulatedNodeActions } from '../cluster/emulated-node-actions.ts';
import {
  HOLD_READY_LINE,
  askArgv,
  heldReply,
  holdArgv,
} from '../cluster/runtime/held-connection.ts';
import { IDLE_CUT_SECONDS } from './over-time-faults.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PROBE_MS = 1000;
/** Faults whose change shows only once something happens on the lab (their witness makes it). */
const CHANGED_BY_AN_EVENT = [
  'stale-endpoint-kept',
  'kube-proxy-not-rebuilt',
  'udp-conntrack-kept',
  'dns-pinned-after-move',
];

/** What the lab's dataplane and fault-relevant state look like, without counters. */
async function snapshot(lab: TestLab): Promise<Record<string, unknown>> {
  const { cluster, session } = lab;
  const sorted = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .sort();
  const nodes = await Promise.all(
    cluster.plan.nodes.map(async (n) => {
      const sh = session.shell(n.name);
      const run = async (argv: string[]) => sorted((await sh.exec(argv)).stdout);
      return [
        n.name,
        {
          routes: await run(['ip', 'route', 'show']),
          fdb: await run(['bridge', 'fdb', 'show', 'dev', vxlanDevice(cluster.plan)]),
          nft: await run(['nft', 'list', 'tables']),
          // kube-proxy's rules, without counters or the dump's timestamp comments.
          kubeProxy: (await run(['iptables-save', '-t', 'nat']))
            .filter((l) => !l.startsWith('#'))
            .map((l) => l.replace(/\[\d+:\d+\]/, '')),
          mtu: await run(['ip', '-o', 'link', 'show', 'eth0']).then(
            (l) => /mtu (\d+)/.exec(l.join(''))?.[1],
          ),
          qdisc: await run(['tc', 'qdisc', 'show', 'dev', 'eth0']),
          cni: n.os === 'windows' ? cluster.windowsCniConfig(n.name) : null,
          // What the node's kube-proxy and the cluster DNS get wrong for it (the feature faults).
          quirks: cluster.proxyQuirks(n.name),
          bareCname: cluster.bareCname(n.name),
        },
      ];
    }),
  );
  return { nodes: Object.fromEntries(nodes), dnsRunning: await session.dns?.running() };
}

/** A probe from a pod created for it on `node` (and removed after): it sees the node's CNI config as it is now. */
async function fromNewPod(lab: TestLab, node: string, args: string[]): Promise<ProbeReply> {
  const name = `fresh-${node}`;
  await lab.cluster.createPod({ name, namespace: lab.namespace, node, labels: { app: 'fresh' } });
  try {
    return await lab.cluster.probe(
      name,
      lab.namespace,
      [...args, '--timeout-ms', String(PROBE_MS)],
      {
        timeoutMs: PROBE_MS + 4000,
      },
    );
  } finally {
    await lab.cluster.deletePod(name, lab.namespace);
  }
}

/** The result of GET `path` from `node`'s test pod to `target`'s, on netexec's port. */
async function podGet(
  lab: TestLab,
  w: TestWorkloads,
  node: string,
  target: string,
  path: string,
): Promise<ProbeReply['result']> {
  const url = `http://${w.pods[target]!}:8080${path}`;
  const args = ['http', url, '--timeout-ms', String(PROBE_MS)];
  return (await lab.cluster.probe(`w-${node}`, lab.namespace, args, { timeoutMs: PROBE_MS + 4000 }))
    .result;
}

/** A probe per fault that must fail while it is applied and pass once healed. */
function witnesses(lab: TestLab, w: TestWorkloads): Record<string, () => Promise<boolean>> {
  const plan = lab.cluster.plan;
  const ip = (node: string) => plan.nodes.find((n) => n.name === node)!.ip;
  const from = async (node: string, args: string[]): Promise<ProbeReply> =>
    lab.cluster.probe(`w-${node}`, lab.namespace, [...args, '--timeout-ms', String(PROBE_MS)], {
      timeoutMs: PROBE_MS + 4000,
    });
  const ok = (o: ProbeReply) => o.result === 'ok';
  const sawPod = (node: string) => (o: ProbeReply) =>
    ok(o) && String(o.body).startsWith(`${w.pods[node]}:`);
  const http = (host: string, port: number, path: string) => [
    'http',
    `http://${host}:${port}${path}`,
  ];
  /** Every Windows endpoint answered a sweep of `base` (new connections until each did). */
  const everyWindowsEndpoint = (o: ProbeReply) =>
    ok(o) &&
    ['w-win1', 'w-win2'].every((name) => (o.answers ?? []).some((a) => a.endpoint === name));
  const sweep = (base: string) => [
    'endpoints',
    base,
    '--expect',
    'w-win1,w-win2',
    '--max-requests',
    '40',
  ];
  /** `node`'s pod's 10 new connections to `base`: who answered each (none where one failed). */
  const tenConnections = async (node: string, base: string, expect: string) => {
    const reply = await from(node, [
      'endpoints',
      base,
      '--expect',
      expect,
      '--min-requests',
      '10',
      '--max-requests',
      '10',
    ]);
    const answers = (reply.answers ?? []).map((a) => a.endpoint);
    return answers.length === 10 ? answers : [];
  };
  // The only Linux node the catalogue lets internal-traffic-policy-ignored act on by default.
  const internalNode = resolveTargets(findFault('internal-traffic-policy-ignored'), plan)[0]!.name;
  /** A pod behind web-linux comes and goes: afterwards, no node's rules may still send to it. */
  const endpointForgotten = async (): Promise<boolean> => {
    const node = plan.nodes.filter((n) => n.os === 'linux').at(-1)!.name;
    const name = `k-${node}`;
    const labels = { app: 'w', os: 'linux', pod: name };
    const ip = await lab.cluster.createPod({ name, namespace: lab.namespace, node, labels });
    await lab.cluster.deletePod(name, lab.namespace);
    const rules = await Promise.all(
      plan.nodes.map(async (n) => (await lab.session.shell(n.name).exec(['iptables-save'])).stdout),
    );
    return rules.every((text) => !text.includes(`--to-destination ${ip}:`));
  };
  return {
    'stale-endpoint-kept': endpointForgotten,
    'pod-route-removed': async () => ok(await from('lin1', http(w.pods.win1!, 8080, '/clientip'))),
    'vxlan-fdb-flushed': async () => ok(await from('win1', http(w.pods.lin1!, 8080, '/clientip'))),
    'dns-stopped': async () =>
      ok(await from('lin1', ['dns', `web-linux.${lab.namespace}.svc.cluster.local`])),
    // A relative name needs the search list, which a pod gets when it is created: a new pod.
    'windows-dns-search-list-missing': async () =>
      ok(await fromNewPod(lab, 'win1', ['dns', 'web-linux'])),
    'nodeport-rules-removed': async () =>
      ok(
        await lab.cluster.probeOutside([
          ...http(ip('win1'), w.services.windows.nodePort, '/hostname'),
          '--timeout-ms',
          String(PROBE_MS),
        ]),
      ),
    'clusterip-rules-removed': async () =>
      ok(await from('lin1', http(w.services.linux.clusterIP, 80, '/hostname'))),
    'masquerade-off': async () =>
      ok(await from('lin1', http(plan.external.address, 8080, '/clientip'))),
    'exception-list-no-cluster-cidr': async () =>
      sawPod('win1')(await from('win1', http(w.pods.lin1!, 8080, '/clientip'))),
    'exception-list-no-service-cidr': async () =>
      sawPod('win1')(await from('win1', http(w.services.linux.clusterIP, 80, '/clientip'))),
    'windows-endpoints-blackholed': async () =>
      ok(await from('lin1', http(w.services.windows.clusterIP, 80, '/hostname'))),
    'node-endpoint-blackholed': async () =>
      everyWindowsEndpoint(await from('lin1', sweep(`http://${w.services.windows.clusterIP}:80`))),
    // win1's kube-proxy leaves out win1's own endpoint: from win1's pods it never answers.
    'local-endpoint-missing': async () =>
      everyWindowsEndpoint(await from('win1', sweep(`http://${w.services.windows.clusterIP}:80`))),
    // win1's pod reaches itself through its own Service only when the node masquerades hairpin traffic.
    'hairpin-masquerade-missing': async () =>
      ok(await from('win1', http(w.hairpinWin1, 80, '/hostname'))),
    // Via win1's Local node port its own pod answers and sees the outside client itself.
    'local-traffic-policy-ignored': async () => {
      const reply = await lab.cluster.probeOutside([
        ...http(ip('win1'), w.localWindowsNodePort, '/clientip'),
        '--timeout-ms',
        String(PROBE_MS),
      ]);
      return ok(reply) && String(reply.body).startsWith(`${plan.network.gateway}:`);
    },
    'pods-cut-from-other-os': async () =>
      ok(await from('win1', http(w.pods.lin1!, 8080, '/clientip'))),
    // win1 drops UDP to its pods; its TCP stays up (the self-test checks that cell by cell).
    'udp-to-pods-dropped': async () =>
      sawPod('lin1')(await from('lin1', ['udp', w.pods.win1!, '8081', 'clientip'])),
    'link-mtu-too-small': async () =>
      ok(await from('win1', http(w.pods.lin1!, 8080, '/big?bytes=65536'))),
    // win1 drops echo requests to its pods; lin1's ping to win1's pod needs them through.
    'icmp-to-pods-dropped': async () => ok(await from('lin1', ['icmp', w.pods.win1!])),
    'dns-tcp-dropped': async () =>
      ok(await from('win1', ['dns-tcp', `web-linux.${lab.namespace}.svc.cluster.local`])),
    // win1's pod through its own node's address; other nodes' NodePorts stay open to it.
    'pods-own-nodeport-dropped': async () =>
      ok(await from('win1', http(ip('win1'), w.services.windows.nodePort, '/hostname'))),
    // ClientIP affinity: ten new connections from win1's pod, one Linux endpoint answers them all.
    'affinity-ignored': async () => {
      const answers = await tenConnections('win1', `http://${w.stickyLinux}:80`, 'w-cp1,w-lin1');
      return answers.length === 10 && new Set(answers).size === 1;
    },
    // win1 has no Linux pod: its health check must say so (503), never 200.
    'health-check-wrong': async () =>
      (
        await lab.cluster.probeOutside([
          ...http(ip('win1'), w.healthCheckNodePort, '/healthz'),
          '--timeout-ms',
          String(PROBE_MS),
        ])
      ).status === 503,
    'cname-unanswered': async () => {
      const reply = await from('win1', ['dns', w.externalName]);
      return ok(reply) && (reply.addresses ?? []).includes(plan.external.address);
    },
    // kube-dns's TCP 53 is the second protocol on its number.
    'port-protocol-collision': async () =>
      ok(await from('win1', ['dns-tcp', `web-linux.${lab.namespace}.svc.cluster.local`])),
    'apiserver-unreachable-from-pods': async () =>
      ok(await from('win1', ['tcp', plan.kubernetes.apiServiceIP, '443'])),
    // internalTrafficPolicy Local: the node's own pod answers every connection, no other does.
    'internal-traffic-policy-ignored': async () => {
      const answers = await tenConnections(
        internalNode,
        `http://${w.internalLocal}:80`,
        `w-${internalNode}`,
      );
      return answers.length === 10 && answers.every((a) => a === `w-${internalNode}`);
    },
    // lin1 sends through its lab link: a stream from its pod carries far more than 1 Mbit/s.
    'link-throttled': async () => {
      const reply = await from('lin1', perf('tcp-stream', `http://${w.pods.win1!}:8080`));
      return ok(reply) && (reply.perf?.mbps ?? 0) > 20;
    },
    // lin1 loses one in five of what it sends: its pod's datagrams to win1's pod go missing.
    'link-lossy': async () => {
      const reply = await from('lin1', perf('udp-stream', `udp://${w.pods.win1!}:8081`));
      return (
        ok(reply) && (reply.perf?.failed ?? 1) / Math.max(1, reply.perf?.attempts ?? 0) <= 0.03
      );
    },
    ...overTimeWitnesses(lab, w, from),
  };
}

/** A connection held from `node`'s test pod (held-connection.sh), asked with `ask`, closed after. */
async function holding<T>(
  lab: TestLab,
  node: string,
  target: { kind: 'http' | 'udp'; host: string; port: number },
  use: (ask: (question: string) => Promise<ProbeReply>) => Promise<T>,
): Promise<T> {
  const pod = lab.cluster.store.read().pods.find((p) => p.name === `w-${node}`)!;
  const runtime = lab.cluster.hosts.pods(node);
  const dir = join(heldDir(pod.netns), `witness-${target.kind}`);
  await runtime.start(pod.netns, holdArgv(dir, target), `${dir}.log`, HOLD_READY_LINE);
  let seq = 0;
  const ask = async (question: string) =>
    heldReply(
      (await runtime.exec(undefined, askArgv(dir, ++seq, PROBE_MS, target.kind, question))).stdout,
    );
  try {
    return await use(ask);
  } finally {
    await runtime.exec(undefined, askArgv(dir, ++seq, PROBE_MS, 'close'));
    await runtime.exec(undefined, ['rm', '-rf', dir, `${dir}.log`]);
  }
}

/** The witnesses of the faults only time shows, each making the event it needs (on lin1). */
function overTimeWitnesses(
  lab: TestLab,
  w: TestWorkloads,
  from: (node: string, args: string[]) => Promise<ProbeReply>,
): Record<string, () => Promise<boolean>> {
  const { cluster } = lab;
  const actions = new EmulatedNodeActions(cluster);
  const web = ['http', `http://${w.services.linux.clusterIP}:80/hostname`];
  return {
    // lin1's kube-proxy restarts: its pods reach a Service once it programmed them again.
    'kube-proxy-not-rebuilt': async () => {
      await actions.kubeProxyRestart('lin1');
      return (await from('lin1', web)).result === 'ok';
    },
    // A socket of lin1's pod keeps sending to a UDP Service whose backend is swapped.
    'udp-conntrack-kept': async () => {
      const namespace = lab.namespace;
      const labels = (name: string) => ({ app: 'u', os: 'linux', pod: name });
      await cluster.createPod({
        name: 'u1',
        namespace,
        node: 'cp1',
        hostname: 'u1',
        labels: labels('u1'),
      });
      const svc = await cluster.createService({
        name: 'udp-w',
        namespace,
        type: 'ClusterIP',
        selector: { app: 'u' },
        ports: [{ name: 'udp', port: 8081, targetPort: 8081, protocol: 'UDP' }],
      });
      try {
        return await holding(
          lab,
          'lin1',
          { kind: 'udp', host: svc.clusterIP!, port: 8081 },
          async (ask) => {
            if ((await ask('hostname')).body !== 'u1') return false;
            await cluster.createPod({
              name: 'u2',
              namespace,
              node: 'cp1',
              hostname: 'u2',
              labels: labels('u2'),
            });
            await cluster.deletePod('u1', namespace);
            for (let i = 0; i < 3; i++) if ((await ask('hostname')).body === 'u2') return true;
            return false;
          },
        );
      } finally {
        await cluster.deleteService('udp-w', namespace);
        for (const name of ['u1', 'u2'])
          await cluster.deletePod(name, namespace).catch(() => undefined);
      }
    },
    // A connection from lin1's pod, idle longer than the fault lets one be, still answers.
    'conntrack-idle-cut': () =>
      holding(lab, 'lin1', { kind: 'http', host: w.pods.win1!, port: 8080 }, async (ask) => {
        const first = await ask('/clientip');
        await new Promise((r) => setTimeout(r, (IDLE_CUT_SECONDS + 3) * 1000));
        const again = await ask('/clientip');
        return first.result === 'ok' && again.result === 'ok' && again.body === first.body;
      }),
    // The DNS pod moves off cp1 and back: lin1's lookups while it was away.
    'dns-pinned-after-move': async () => {
      const home = actions.dnsNode();
      await actions.moveDns();
      try {
        return (
          (await from('lin1', ['dns', `web-linux.${lab.namespace}.svc.cluster.local`])).result ===
          'ok'
        );
      } finally {
        await actions.moveDnsTo(home);
      }
    },
  };
}

/** A perf measure's probe arguments: 300 ms, the UDP stream at 4 Mbit/s. */
function perf(measure: string, base: string): string[] {
  return [
    'perf',
    measure,
    base,
    '--duration-ms',
    '500',
    ...(measure === 'udp-stream' ? ['--rate-mbps', '4'] : []),
  ];
}

/** `lab heal --lab NAME` in a child process, as a user would run it from another shell. */
async function healFromAnotherProcess(lab: TestLab): Promise<string> {
  const script = [
    "import { Command } from 'commander';",
    `import { LabStore } from ${JSON.stringify(`${REPO}lab/state/lab-store.ts`)};`,
    `import { registerFaultCommands } from ${JSON.stringify(`${REPO}lab/cli/fault-commands.ts`)};`,
    "const program = new Command('lab');",
    'registerFaultCommands(program, new LabStore(process.env.LAB_HOME));',
    `await program.parseAsync(['heal', '--lab', ${JSON.stringify(lab.name)}], { from: 'user' });`,
  ].join('\n');
  const result = await new ExecaRunner(silentLogger()).run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: REPO, env: { LAB_HOME: lab.labHome } },
  );
  return result.stdout;
}

describe('fault injection on a netns lab (integration)', function () {
  this.timeout(240_000);
  let lab: TestLab | undefined;
  let workloads: TestWorkloads;
  let baseline: Record<string, unknown>;

  before(async function () {
    skipIf(this, await faultSkipReason());
    lab = await startTestLab('fault');
    workloads = await deployWorkloads(lab);
    baseline = await snapshot(lab);
  });

  after(async () => {
    await lab?.down();
  });

  FAULT_CATALOGUE.forEach((fault, index) => {
    it(`${fault.id}: breaks the dataplane, and heal restores it exactly`, async () => {
      const current = lab!;
      const witness = witnesses(current, workloads)[fault.id];
      if (witness === undefined) expect.fail(`no witness probe for ${fault.id}`);
      expect(await witness(), 'works before the fault').to.be.true;
      await breakFault(current.session, fault.id);
      // A kept endpoint changes nothing until an endpoint goes; its witness makes one go. So do
      // the faults only time shows: until a restart, a deleted UDP endpoint, the DNS pod moving.
      if (!CHANGED_BY_AN_EVENT.includes(fault.id)) {
        expect(await snapshot(current), 'the fault changed something').to.not.deep.equal(baseline);
      }
      expect(await witness(), 'fails while the fault is applied').to.be.false;
      if (index % 2 === 0) {
        expect(await healFaults(current.session)).to.have.length(1);
      } else {
        expect(await healFromAnotherProcess(current)).to.contain(`healed ${fault.id}`);
      }
      expect(current.session.records.read()).to.deep.equal([]);
      expect(await snapshot(current), 'heal restored everything').to.deep.equal(baseline);
      expect(await witness(), 'works again after heal').to.be.true;
    });
  });

  it("link-mtu-too-small: large answers to the node's pods are lost every time, small ones and other directions pass", async () => {
    const current = lab!;
    const get = (node: string, target: string, bytes: number) =>
      podGet(current, workloads, node, target, `/big?bytes=${bytes}`);
    await breakFault(current.session, 'link-mtu-too-small', 'win1');
    try {
      for (let i = 0; i < 3; i++) {
        expect(await get('win1', 'lin1', 65536), 'large answer into win1').to.equal('timeout');
        expect(await get('win1', 'lin1', 500), 'small answer into win1').to.equal('ok');
        expect(await get('lin1', 'win1', 65536), 'large answer out of win1').to.equal('ok');
        expect(await get('win1', 'win1', 65536), 'same node').to.equal('ok');
      }
    } finally {
      await healFaults(current.session);
    }
    expect(await snapshot(current)).to.deep.equal(baseline);
  });

  it('pods-cut-from-other-os on win2: its connections to Linux pods fail, the reverse and its Windows peers work', async () => {
    const current = lab!;
    const get = (node: string, target: string) =>
      podGet(current, workloads, node, target, '/clientip');
    await breakFault(current.session, 'pods-cut-from-other-os', 'win2');
    try {
      for (let i = 0; i < 2; i++) {
        expect(await get('win2', 'lin1'), 'win2 → lin1').to.equal('timeout');
        expect(await get('win2', 'cp1'), 'win2 → cp1').to.equal('timeout');
        expect(await get('lin1', 'win2'), 'lin1 → win2').to.equal('ok');
        expect(await get('win2', 'win1'), 'win2 → win1').to.equal('ok');
        expect(await get('win1', 'lin1'), 'win1 → lin1').to.equal('ok');
      }
    } finally {
      await healFaults(current.session);
    }
    expect(await snapshot(current)).to.deep.equal(baseline);
  });

  it('dns-tcp-dropped on win1: its lookups over TCP time out; over UDP, and from other nodes, they answer', async () => {
    const current = lab!;
    const fqdn = `web-linux.${current.namespace}.svc.cluster.local`;
    const lookup = async (node: string, kind: 'dns' | 'dns-tcp') =>
      (
        await current.cluster.probe(
          `w-${node}`,
          current.namespace,
          [kind, fqdn, '--timeout-ms', String(PROBE_MS)],
          { timeoutMs: PROBE_MS + 4000 },
        )
      ).result;
    await breakFault(current.session, 'dns-tcp-dropped', 'win1');
    try {
      for (let i = 0; i < 2; i++) {
        expect(await lookup('win1', 'dns-tcp'), 'win1 over TCP').to.equal('timeout');
        expect(await lookup('win1', 'dns'), 'win1 over UDP').to.equal('ok');
        expect(await lookup('win2', 'dns-tcp'), 'win2 over TCP').to.equal('ok');
        expect(await lookup('cp1', 'dns-tcp'), 'cp1 over TCP (the DNS pod is on cp1)').to.equal(
          'ok',
        );
      }
    } finally {
      await healFaults(current.session);
    }
    expect(await snapshot(current)).to.deep.equal(baseline);
  });

  it('windows-dns-search-list-missing: relative names fail from new Windows pods only; FQDNs still resolve', async () => {
    const current = lab!;
    const lookup = async (node: string, name: string) =>
      (await fromNewPod(current, node, ['dns', name])).result;
    const fqdn = `web-linux.${current.namespace}.svc.cluster.local`;
    await breakFault(current.session, 'windows-dns-search-list-missing');
    try {
      for (const node of ['win1', 'win2']) {
        expect(await lookup(node, 'web-linux'), `${node} relative`).to.not.equal('ok');
        expect(await lookup(node, fqdn), `${node} FQDN`).to.equal('ok');
      }
      expect(await lookup('lin1', 'web-linux'), 'lin1 relative').to.equal('ok');
    } finally {
      await healFaults(current.session);
    }
    expect(await snapshot(current)).to.deep.equal(baseline);
  });

  it('heals several faults at once, newest first', async () => {
    const current = lab!;
    for (const id of ['masquerade-off', 'dns-stopped', 'pod-route-removed'])
      await breakFault(current.session, id);
    expect((await healFaults(current.session)).map((f) => f.fault)).to.deep.equal([
      'masquerade-off',
      'dns-stopped',
      'pod-route-removed',
    ]);
    expect(await snapshot(current)).to.deep.equal(baseline);
  });
});
