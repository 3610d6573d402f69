import { expect } from 'chai';
import {
  withChangedTwin,
  type OverTimeService,
  type OverTimeWorkloads,
} from './over-time-driver.ts';

const service = (name: string, clusterIP: string): OverTimeService => ({
  name,
  clusterIP,
  port: 80,
  fqdn: `${name}.run.svc.cluster.local`,
});

describe('withChangedTwin', () => {
  const deployed: OverTimeWorkloads = {
    twin: [
      {
        os: 'linux',
        kept: service('twin-a-linux', '10.96.0.10'),
        changed: service('twin-b-linux', '10.96.0.11'),
      },
      {
        os: 'windows',
        kept: service('twin-a-windows', '10.96.0.20'),
        changed: service('twin-b-windows', '10.96.0.21'),
      },
    ],
    udpState: [],
  };

  it("changes only that OS's changed Service: gone, then made again", () => {
    const gone = withChangedTwin(deployed, 'windows', undefined);
    expect(gone.twin).to.deep.equal([
      deployed.twin[0],
      { os: 'windows', kept: deployed.twin[1]!.kept, changed: undefined },
    ]);
    const remade = service('twin-b-windows', '10.96.0.99');
    expect(withChangedTwin(gone, 'windows', remade).twin[1]).to.deep.equal({
      os: 'windows',
      kept: deployed.twin[1]!.kept,
      changed: remade,
    });
  });

  it('keeps the rest of what was deployed, and leaves the original as it was', () => {
    const withUdp = { ...deployed, udpState: [{ marker: true }] } as unknown as OverTimeWorkloads;
    expect(withChangedTwin(withUdp, 'linux', undefined).udpState).to.equal(withUdp.udpState);
    expect(deployed.twin[0]!.changed?.clusterIP).to.equal('10.96.0.11');
  });
});
