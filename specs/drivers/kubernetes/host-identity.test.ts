import { expect } from 'chai';
import { windowsHostIdentities } from './host-identity.ts';
import type { ProbeReply, ProbeRequest } from '../../model/lab-driver.ts';

const host = (node: string, hostname = node) => ({
  node,
  address: `192.0.2.${node.length}`,
  port: 8085,
  hostname,
});

describe('Windows host identity at deploy', () => {
  it('asks each Windows host its /hostname on its own node and expects that from then on', async () => {
    const asked: [string, ProbeRequest][] = [];
    const replies: Record<string, ProbeReply> = {
      'ip-10-0-1-5.ec2.internal': { result: 'ok', body: 'EC2AMAZ-4J2K9QX\n' },
      winworker0000001: { result: 'ok', body: 'winworker000000' },
      win1: { result: 'ok', body: 'win1' },
      win2: { result: 'timeout' },
    };
    const { hosts, differ } = await windowsHostIdentities(
      [
        host('lin1'),
        host('ip-10-0-1-5.ec2.internal'),
        host('winworker0000001'),
        host('win1'),
        host('win2'),
      ],
      new Set(['ip-10-0-1-5.ec2.internal', 'winworker0000001', 'win1', 'win2']),
      (node, request) => {
        asked.push([node, request]);
        return Promise.resolve(replies[node]!);
      },
    );
    expect(asked.map(([node]) => node)).to.deep.equal([
      'ip-10-0-1-5.ec2.internal',
      'winworker0000001',
      'win1',
      'win2',
    ]);
    expect(asked[0]![1]).to.deep.equal({ kind: 'http', url: 'http://192.0.2.24:8085/hostname' });
    expect(hosts.map((h) => h.hostname)).to.deep.equal([
      'lin1', // Linux hosts are not asked: a host-network pod has the node's hostname
      'EC2AMAZ-4J2K9QX',
      'winworker000000', // the computer name, cut to 15 characters
      'win1',
      'win2', // no answer: the label stays, and its cells fail naming why
    ]);
    expect(differ).to.deep.equal([
      {
        node: 'ip-10-0-1-5.ec2.internal',
        label: 'ip-10-0-1-5.ec2.internal',
        said: 'EC2AMAZ-4J2K9QX',
      },
      { node: 'winworker0000001', label: 'winworker0000001', said: 'winworker000000' },
    ]);
  });

  it('an empty answer keeps the label', async () => {
    const { hosts, differ } = await windowsHostIdentities([host('win1')], new Set(['win1']), () =>
      Promise.resolve({ result: 'ok', body: ' ' }),
    );
    expect(hosts[0]!.hostname).to.equal('win1');
    expect(differ).to.deep.equal([]);
  });
});
