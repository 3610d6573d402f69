import { expect } from 'chai';
import type { CellResult, ResultsFile } from '../../lab/contracts/results-file.ts';
import { timeToGreen } from './disruption-bench.ts';

const cell = (id: string, verdict: CellResult['verdict'], timeToGreenMs?: number): CellResult => ({
  row: 'r',
  cell: id,
  title: id,
  source: { os: 'linux', node: 'lin1', label: 'linux pod' },
  target: { os: 'linux', node: 'lin2', label: 'linux pod' },
  via: 'ip',
  placement: '',
  expected: 'ok',
  verdict,
  detail: '',
  durationMs: 1,
  attempts: 1,
  recovery: {
    after: 'x',
    subject: 'y',
    ...(timeToGreenMs === undefined ? {} : { timeToGreenMs }),
    boundMs: 60_000,
    boundFrom: 'default',
  },
});

describe('disruption bench figures', () => {
  it('group time to green by action and the OS of the node, the DNS move apart', () => {
    const id = (action: string, node: string) =>
      `disruption/${action}/${node}/pod-to-pod/linux-to-linux/same-node/${node}/ip`;
    const results = {
      cells: [
        cell(id('node-reboot', 'lin1'), 'pass', 3000),
        cell(id('node-reboot', 'lin1'), 'pass', 1000),
        cell(id('node-reboot', 'lin2'), 'pass', 2000),
        cell(id('node-reboot', 'win1'), 'fail'),
        cell(id('node-reboot', 'win1'), 'skipped'),
        cell('disruption/dns-pods-moved/cluster/dns/fqdn/linux/lin1/dns', 'pass', 500),
        cell('pod-to-pod/linux-to-linux/same-node/lin1/ip', 'pass', 9),
      ],
    } as unknown as ResultsFile;
    const os = (node: string) =>
      node.startsWith('win') ? 'windows' : node.startsWith('lin') ? 'linux' : undefined;
    expect(timeToGreen(results, os)).to.deep.equal({
      'node-reboot': {
        linux: { cells: 3, green: 3, boundMs: 60_000, p50Ms: 2000, maxMs: 3000 },
        windows: { cells: 1, green: 0, boundMs: 60_000 },
      },
      'dns-pods-moved': {
        cluster: { cells: 1, green: 1, boundMs: 60_000, p50Ms: 500, maxMs: 500 },
      },
    });
  });
});
