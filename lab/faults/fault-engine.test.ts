import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { windowsCniConfig, outboundNat } from '../cni/windows-cni-config.ts';
import { CommandError } from '../errors.ts';
import { RecordingRunner } from '../testing/recording-runner.ts';
import { silentLogger } from '../log/logger.ts';
import { fixturePlan } from '../testing/fixture-plan.ts';
import { NetnsNodeShell } from '../remote/netns-node-shell.ts';
import { breakFault, healFaults } from './fault-engine.ts';
import { FaultError } from './fault-error.ts';
import type { KubeProxyQuirk } from '../cluster/control/cluster-state.ts';
import { FaultRecords } from './fault-records.ts';
import type { FaultSession } from './fault-session.ts';

const plan = fixturePlan();
const ROUTE =
  '[{"dst":"10.244.2.0/24","gateway":"10.244.2.0","dev":"flannel.4096","flags":["onlink"]}]';
const FDB =
  '[{"mac":"0e:6c:00:00:00:00","dst":"192.168.200.10","flags":["self"],"state":"permanent"},' +
  '{"mac":"00:00:00:00:00:00","flags":["self"]}]';

function fakeSession(dir: string, runner = new RecordingRunner(), upAt = 'up-1') {
  const configs = new Map(
    plan.nodes
      .filter((n) => n.os === 'windows')
      .map((n) => [n.name, windowsCniConfig(plan, n) as unknown]),
  );
  const dns = { up: true };
  const stale = new Map<string, string[]>();
  const localPolicyIgnored = new Set<string>();
  const keeping = new Set<string>();
  const quirks = new Map<string, KubeProxyQuirk[]>();
  const bare = new Set<string>();
  const session: FaultSession = {
    plan,
    shell: (node) => new NetnsNodeShell(node, `ns-${node}`, runner),
    cluster: {
      windowsCniConfig: (node) => structuredClone(configs.get(node)),
      setWindowsCniConfig: (node, config) => {
        configs.set(node, config);
        return Promise.resolve();
      },
      staleProxyView: (node) => [...(stale.get(node) ?? [])],
      setStaleProxyView: (node, ignored) => {
        stale.set(node, [...ignored]);
        return Promise.resolve();
      },
      ignoresLocalPolicy: (node) => localPolicyIgnored.has(node),
      setIgnoresLocalPolicy: (node, ignored) => {
        if (ignored) localPolicyIgnored.add(node);
        else localPolicyIgnored.delete(node);
        return Promise.resolve();
      },
      keepsEndpoints: (node) => keeping.has(node),
      setKeepsEndpoints: (node, keeps) => {
        if (keeps) keeping.add(node);
        else keeping.delete(node);
        return Promise.resolve();
      },
      proxyQuirks: (node) => [...(quirks.get(node) ?? [])],
      setProxyQuirks: (node, list) => Promise.resolve(void quirks.set(node, [...list])),
      bareCname: (node) => bare.has(node),
      setBareCname: (node, on) => {
        if (on) bare.add(node);
        else bare.delete(node);
        return Promise.resolve();
      },
    },
    dns: {
      running: () => Promise.resolve(dns.up),
      stop: () => Promise.resolve(void (dns.up = false)),
      start: () => Promise.resolve(void (dns.up = true)),
    },
    records: new FaultRecords(dir, plan.id, upAt),
    log: silentLogger(),
  };
  return { session, runner, configs, dns };
}

describe('fault engine', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-faults-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes a route after recording it, and heal puts the very same route back', async () => {
    const { session, runner } = fakeSession(dir);
    runner.on(/route show exact/, { stdout: ROUTE });
    await breakFault(session, 'pod-route-removed', 'win1');
    const applied = JSON.parse(readFileSync(join(dir, 'faults.json'), 'utf8')) as {
      applied: unknown[];
    };
    expect(applied.applied).to.have.length(1);
    const lines = runner.lines();
    expect(lines).to.include(
      'ip netns exec ns-cp1 ip route del 10.244.2.0/24 via 10.244.2.0 dev flannel.4096 onlink',
    );
    expect(lines.filter((l) => l.includes('route del'))).to.have.length(3);
    runner.calls.length = 0;
    await healFaults(session);
    expect(runner.lines()).to.deep.equal(
      ['win2', 'lin1', 'cp1'].map(
        (n) =>
          `ip netns exec ns-${n} ip route replace 10.244.2.0/24 via 10.244.2.0 dev flannel.4096 onlink`,
      ),
    );
    expect(session.records.read()).to.deep.equal([]);
  });

  it('flushes remote FDB entries in one batch and restores them', async () => {
    const { session, runner } = fakeSession(dir);
    runner.on(/fdb show/, { stdout: FDB });
    await breakFault(session, 'vxlan-fdb-flushed', 'win1');
    const batch = runner.calls.find((c) => c.line.endsWith('bridge -batch -'));
    expect(batch?.options.input).to.equal(
      'fdb del 0e:6c:00:00:00:00 dev flannel.4096 dst 192.168.200.10 self\n',
    );
    runner.calls.length = 0;
    await healFaults(session);
    expect(runner.lines()).to.deep.equal([
      'ip netns exec ns-win1 bridge fdb replace 0e:6c:00:00:00:00 dev flannel.4096 dst 192.168.200.10 self permanent',
    ]);
  });

  it('edits Windows CNI configs through the cluster API and restores the originals', async () => {
    const { session, configs } = fakeSession(dir);
    const original = structuredClone(configs.get('win1'));
    await breakFault(session, 'exception-list-no-service-cidr');
    expect(outboundNat(configs.get('win1')).exceptions).to.deep.equal([plan.kubernetes.podCIDR]);
    await healFaults(session);
    expect(configs.get('win1')).to.deep.equal(original);
  });

  it('stops and restarts the DNS server', async () => {
    const { session, dns } = fakeSession(dir);
    await breakFault(session, 'dns-stopped');
    expect(dns.up).to.be.false;
    await healFaults(session);
    expect(dns.up).to.be.true;
  });

  it('loads nft tables and heal deletes them, fine when one is gone already', async () => {
    const { session, runner } = fakeSession(dir);
    await breakFault(session, 'nodeport-rules-removed', 'win2');
    const load = runner.calls.find((c) => c.line === 'ip netns exec ns-win2 nft -f -');
    expect(load?.options.input).to.contain('th dport 30000-32767 notrack');
    runner.on(/nft delete table/, { exitCode: 1, stderr: 'Error: No such file or directory' });
    await healFaults(session);
    expect(session.records.read()).to.deep.equal([]);
  });

  it('forgets the tracked flows of the cut pods once the table is in; none to forget is fine', async () => {
    const { session, runner } = fakeSession(dir);
    runner.on(/conntrack -D/, { exitCode: 1, stderr: '0 flow entries have been deleted.' });
    await breakFault(session, 'pods-cut-from-other-os', 'win2');
    const lines = runner.calls.map((c) => c.line);
    const load = lines.indexOf('ip netns exec ns-win2 nft -f -');
    const forget = lines.indexOf('ip netns exec ns-win2 conntrack -D -s 10.244.3.0/24');
    expect(load, lines.join('\n')).to.be.greaterThan(-1);
    expect(forget, 'after the table is in').to.be.greaterThan(load);
    await healFaults(session);
    const missing = fakeSession(dir);
    missing.runner.on(/conntrack -D/, { exitCode: 127, stderr: 'conntrack: not found' });
    await breakFault(missing.session, 'pods-cut-from-other-os', 'win2').then(
      () => expect.fail('a missing conntrack must fail the fault'),
      (error: unknown) => expect(String(error)).to.match(/conntrack -D -s .* exited 127/),
    );
    expect(missing.session.records.read(), 'a failed apply records nothing').to.deep.equal([]);
  });

  it('records the MTU it lowers and heal sets it back', async () => {
    const { session, runner } = fakeSession(dir);
    runner.on(/link show dev eth0/, { stdout: '[{"ifname":"eth0","mtu":1500}]' });
    await breakFault(session, 'link-mtu-too-small');
    expect(runner.lines()).to.include('ip netns exec ns-win1 ip link set dev eth0 mtu 1400');
    runner.calls.length = 0;
    await healFaults(session);
    expect(runner.lines()).to.deep.equal([
      'ip netns exec ns-win1 nft delete table netdev hlfault_link_mtu_too_small',
      'ip netns exec ns-win1 ip link set dev eth0 mtu 1500',
    ]);
  });

  it('heals from a fresh session (another process) reading the same file', async () => {
    const first = fakeSession(dir);
    await breakFault(first.session, 'masquerade-off');
    const second = fakeSession(dir);
    const healed = await healFaults(second.session);
    expect(healed.map((h) => h.fault)).to.deep.equal(['masquerade-off']);
    expect(second.runner.lines()).to.deep.equal(
      ['lin1', 'cp1'].map(
        (n) => `ip netns exec ns-${n} nft delete table ip hlfault_masquerade_off`,
      ),
    );
  });

  it('ignores records of an earlier bring-up of the lab', async () => {
    await breakFault(fakeSession(dir).session, 'masquerade-off');
    const rebuilt = fakeSession(dir, new RecordingRunner(), 'up-2');
    expect(rebuilt.session.records.read()).to.deep.equal([]);
    expect(await healFaults(rebuilt.session)).to.deep.equal([]);
  });

  it('refuses to apply a fault twice, changing nothing', async () => {
    const { session, runner } = fakeSession(dir);
    await breakFault(session, 'masquerade-off');
    runner.calls.length = 0;
    const error = await breakFault(session, 'masquerade-off').catch((e: unknown) => e);
    expect(error)
      .to.be.instanceOf(FaultError)
      .with.property('message')
      .that.matches(/applied already/);
    expect(runner.calls).to.deep.equal([]);
  });

  it('bad input changes nothing', async () => {
    const { session, runner } = fakeSession(dir);
    for (const [id, node] of [
      ['nope', undefined],
      ['masquerade-off', 'win1'],
      ['dns-stopped', 'cp1'],
    ] as const) {
      const error = await breakFault(session, id, node).catch((e: unknown) => e);
      expect(error, id).to.be.instanceOf(FaultError);
    }
    expect(runner.calls).to.deep.equal([]);
    expect(session.records.read()).to.deep.equal([]);
  });

  it('a failure half-way reverts what was applied and rethrows the original error', async () => {
    const { session, runner } = fakeSession(dir);
    runner.on(/route show exact/, { stdout: ROUTE });
    runner.on(/ns-win1 ip route del/, { exitCode: 2, stderr: 'RTNETLINK answers: injected' });
    const error = await breakFault(session, 'pod-route-removed', 'win2').catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CommandError).with.property('message').that.contains('injected');
    const replaced = runner.lines().filter((l) => l.includes('route replace'));
    expect(replaced.map((l) => l.split(' ')[3])).to.deep.equal(['ns-win1', 'ns-lin1', 'ns-cp1']);
    expect(session.records.read()).to.deep.equal([]);
  });

  it('a heal that fails keeps that fault recorded for a retry and heals the others', async () => {
    const { session, runner } = fakeSession(dir);
    await breakFault(session, 'masquerade-off');
    await breakFault(session, 'nodeport-rules-removed');
    runner.on(/nft delete table ip hlfault_nodeport/, { exitCode: 1, stderr: 'Error: injected' });
    const error = await healFaults(session).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CommandError);
    expect(session.records.read().map((a) => a.fault)).to.deep.equal(['nodeport-rules-removed']);
  });
});
