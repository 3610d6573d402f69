import { expect } from 'chai';
import {
  DEFAULT_E2E_NODES,
  DEFAULT_E2E_TIMEOUT_MS,
  e2eSettings,
  E2eSettingsError,
} from './e2e-settings.ts';

describe('e2e settings', function () {
  it('defaults, and arguments over the environment', function () {
    expect(e2eSettings([], {})).to.deep.equal({
      nodes: DEFAULT_E2E_NODES,
      timeoutMs: DEFAULT_E2E_TIMEOUT_MS,
    });
    expect(
      e2eSettings(['--focus', 'Conntrack', '--skip', '', '--nodes', '3', '--lab', 'k35'], {
        E2E_NODES: '1',
        E2E_TIMEOUT_MS: '600000',
      }),
    ).to.deep.equal({ lab: 'k35', focus: 'Conntrack', skip: '', nodes: 3, timeoutMs: 600_000 });
  });

  it('--cross-checked asks for the cross-check specs only', function () {
    expect(e2eSettings(['--cross-checked'], {})).to.deep.include({ crossChecked: true });
  });

  const bad: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    [
      'a word for --nodes',
      ['--nodes', 'two'],
      {},
      /--nodes: expected a whole number from 1 to 16, got "two"/,
    ],
    [
      'zero nodes from the environment',
      [],
      { E2E_NODES: '0' },
      /E2E_NODES: expected a whole number/,
    ],
    [
      'a timeout under a minute',
      [],
      { E2E_TIMEOUT_MS: '5000' },
      /E2E_TIMEOUT_MS: expected a whole number from 60000/,
    ],
    ['a broken focus', ['--focus', '(sig-network'], {}, /--focus: not a regular expression/],
    ['an unknown option', ['--grep', 'dns'], {}, /npm run e2e: Unknown option '--grep'/],
  ];
  for (const [what, argv, env, message] of bad) {
    it(`${what} is refused, naming the setting`, function () {
      expect(() => e2eSettings(argv, env))
        .to.throw(E2eSettingsError)
        .with.property('message')
        .that.matches(message);
    });
  }
});
