import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ciMaySkip, missing, optIn, skipTest } from './skip.ts';

describe('test skips under CI=true', function () {
  const dir = mkdtempSync(join(tmpdir(), 'hl-skip-'));
  const ciScript = join(dir, 'run');
  writeFileSync(ciScript, 'run_mocha npm run test:present\n');
  const nightly = join(dir, 'nightly.yml');
  writeFileSync(nightly, '      - run: npm run test:nightly\n');

  it('refuses a skip for anything installable, allows what this machine cannot have', function () {
    expect(ciMaySkip(missing('shellcheck is not installed'), ciScript)).to.match(
      /only for working KVM and Windows images/,
    );
    expect(
      ciMaySkip({ kind: 'unavailable', what: 'Windows images', reason: 'no ISO' }, ciScript),
    ).to.equal(undefined);
  });

  it('allows an opt-in test to skip only when .ci/run or the nightly runs it as its own step', function () {
    const env = process.env.HL_SKIP_TEST_OPT;
    delete process.env.HL_SKIP_TEST_OPT;
    try {
      const present = optIn('HL_SKIP_TEST_OPT', 'npm run test:present', 'slow');
      const absent = optIn('HL_SKIP_TEST_OPT', 'npm run test:absent', 'slow');
      expect(present?.reason).to.equal(
        'set HL_SKIP_TEST_OPT=1 (slow; CI or the nightly runs it as `npm run test:present`)',
      );
      expect(ciMaySkip(present!, ciScript, nightly)).to.equal(undefined);
      const atNight = optIn('HL_SKIP_TEST_OPT', 'npm run test:nightly', 'slow');
      expect(ciMaySkip(atNight!, ciScript, nightly)).to.equal(undefined);
      expect(ciMaySkip(absent!, ciScript, nightly)).to.equal(
        'its own step `npm run test:absent` is neither in .ci/run nor in the nightly',
      );
      process.env.HL_SKIP_TEST_OPT = '1';
      expect(optIn('HL_SKIP_TEST_OPT', 'npm run test:present', 'slow')).to.equal(undefined);
    } finally {
      if (env === undefined) delete process.env.HL_SKIP_TEST_OPT;
      else process.env.HL_SKIP_TEST_OPT = env;
    }
  });

  it('fails the test instead of skipping it when CI=true and a tool is missing', function () {
    const ci = process.env.CI;
    process.env.CI = 'true';
    try {
      expect(() => skipTest(this, missing('packer is not installed'))).to.throw(
        'cannot run: packer is not installed (CI=true allows skips only for working KVM and Windows images and opt-in steps .ci/run runs)',
      );
    } finally {
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
  });
});
