/** positiveIntSetting: a positive integer, the fallback when unset or empty, else an error naming the variable. */
import { expect } from 'chai';
import { SettingError, positiveIntSetting } from './settings.ts';

describe('positiveIntSetting', () => {
  it('reads a positive integer, and takes the fallback when unset or empty', () => {
    expect(positiveIntSetting({ PEERS: '12' }, 'PEERS', 3)).to.equal(12);
    expect(positiveIntSetting({}, 'PEERS', 3)).to.equal(3);
    expect(positiveIntSetting({ PEERS: '' }, 'PEERS', 3)).to.equal(3);
  });

  it('anything else is a SettingError naming the variable, the value and how to get the default', () => {
    let error: unknown;
    try {
      positiveIntSetting({ PEERS: '0' }, 'PEERS', 3);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(SettingError);
    expect(error).to.include({
      name: 'SettingError',
      message: 'PEERS must be a positive integer, got "0"',
      hint: 'unset PEERS for the default (3)',
    });
  });
});
