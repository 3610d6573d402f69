import { expect } from 'chai';
import { SettingError } from '../../model/settings.ts';
import { selectionFromArgv } from '../selection.ts';
import { checkDisruptionNodes, overTimeSettings } from './over-time-settings.ts';

const grep = (pattern?: string) =>
  selectionFromArgv(pattern === undefined ? [] : ['--grep', pattern]);

describe('over-time settings', () => {
  it('are off unless a setting or a --grep naming them turns them on', () => {
    expect(overTimeSettings({}, grep())).to.include({ enabled: false });
    expect(overTimeSettings({}, grep()).actions).to.deep.equal([]);
    expect(overTimeSettings({}, grep('win2')).enabled).to.equal(false);
    expect(overTimeSettings({}, grep('long-lived')).enabled).to.equal(true);
    expect(overTimeSettings({}, grep('long-lived')).actions).to.deep.equal([]);
    expect(overTimeSettings({ OVER_TIME: 'on' }, grep()).enabled).to.equal(true);
    expect(overTimeSettings({ OVER_TIME: 'off' }, grep('udp-conntrack')).enabled).to.equal(false);
    expect(selectionFromArgv(['--grep', 'disruption', '--invert']).pattern).to.equal(undefined);
  });

  it('runs every action for DISRUPTIONS=on or --grep disruption, and only the named ones when named', () => {
    const all = overTimeSettings({ DISRUPTIONS: 'on' }, grep());
    expect(all).to.include({ enabled: true, named: false });
    expect(all.actions).to.have.length(5);
    expect(overTimeSettings({}, grep('disruption node-reboot')).actions).to.have.length(5);
    expect(overTimeSettings({ DISRUPTIONS: 'off' }, grep('disruption')).actions).to.deep.equal([]);
    const named = overTimeSettings({ DISRUPTIONS: 'node-reboot, kube-proxy-restart' }, grep());
    expect(named).to.include({ named: true, enabled: true });
    // In the phase's own order, whatever order they were named in.
    expect(named.actions).to.deep.equal(['kube-proxy-restart', 'node-reboot']);
  });

  it('reads the nodes and the idle time, with their defaults', () => {
    expect(overTimeSettings({}, grep()).nodes).to.equal('ends');
    expect(overTimeSettings({ DISRUPTION_NODES: 'all' }, grep()).nodes).to.equal('all');
    expect(overTimeSettings({ DISRUPTION_NODES: 'lin1,win2' }, grep()).nodes).to.deep.equal([
      'lin1',
      'win2',
    ]);
    expect(overTimeSettings({}, grep()).idleMs).to.equal(30_000);
    expect(overTimeSettings({ LONG_LIVED_IDLE_MS: '240000' }, grep()).idleMs).to.equal(240_000);
  });

  it('names the setting and what it allows for a bad value', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [
        { DISRUPTIONS: 'reboot' },
        /^DISRUPTIONS must be off, on, or a comma list of kube-proxy-restart/,
      ],
      [{ DISRUPTIONS: 'on,node-reboot' }, /^DISRUPTIONS must be/],
      [{ DISRUPTION_NODES: 'Lin_1' }, /^DISRUPTION_NODES must be ends, all, or a comma list/],
      [{ OVER_TIME: 'yes' }, /^OVER_TIME must be on or off; got 'yes'/],
      [{ LONG_LIVED_IDLE_MS: '4 min' }, /^LONG_LIVED_IDLE_MS must be a positive integer/],
    ];
    for (const [env, message] of bad)
      expect(() => overTimeSettings(env, grep()), JSON.stringify(env)).to.throw(
        SettingError,
        message,
      );
  });

  it("refuses nodes the lab does not have, naming them and the lab's", () => {
    const lab = [{ name: 'cp1' }, { name: 'lin1' }];
    expect(() => {
      checkDisruptionNodes(['lin1'], lab);
    }).to.not.throw();
    expect(() => {
      checkDisruptionNodes('ends', lab);
    }).to.not.throw();
    expect(() => {
      checkDisruptionNodes(['lin1', 'lin7'], lab);
    }).to.throw(
      SettingError,
      'DISRUPTION_NODES names lin7, which the lab does not have (nodes: cp1, lin1)',
    );
  });
});
