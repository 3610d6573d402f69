import { expect } from 'chai';
import { fixturePlan } from '../testing/fixture-plan.ts';
import { flannelNetConf, renderFlannelNetConf } from './flannel-net-conf.ts';

describe('flannelNetConf', () => {
  it('uses VNI 4096 and port 4789 for vxlan (golden)', () => {
    expect(renderFlannelNetConf(fixturePlan({ backend: 'vxlan' }))).to.equal(
      [
        '{',
        '  "Network": "10.244.0.0/16",',
        '  "Backend": {',
        '    "Type": "vxlan",',
        '    "VNI": 4096,',
        '    "Port": 4789',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('renders host-gw without vxlan settings (golden)', () => {
    expect(flannelNetConf(fixturePlan({ backend: 'host-gw' }))).to.deep.equal({
      Network: '10.244.0.0/16',
      Backend: { Type: 'host-gw' },
    });
  });
});
