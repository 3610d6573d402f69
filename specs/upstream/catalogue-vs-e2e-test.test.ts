/**
 * The catalogue against the real e2e.test of the artifact cache: every spec it names exists, and
 * every pattern chooses something, so a typo never silently drops a cross-check or a limit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { E2E_ARTIFACTS } from '../../lab/provision/artifact-catalogue.ts';
import { missing, skipTest } from '../../lab/testing/skip.ts';
import { parseGinkgoJunit } from './ginkgo-junit.ts';
import { loadUpstreamCatalogue, selectionFor } from './upstream-catalogue.ts';

/** build.sh's cache (HL_K8S_CACHE, as the recipe reads it). */
const E2E_TEST = join(
  process.env.HL_K8S_CACHE ?? '/var/cache/hybrid-lab/kubernetes',
  'v1.20.2',
  ...E2E_ARTIFACTS.e2eTest.split('/'),
);

describe('upstream catalogue against e2e.test v1.20.2', function () {
  this.timeout(120_000);
  const catalogue = loadUpstreamCatalogue();
  let names: string[] = [];
  before(function () {
    if (!existsSync(E2E_TEST)) {
      skipTest(this, missing(`${E2E_TEST} is missing: bash vagrant/artifacts/kubernetes/build.sh`));
    }
    const dir = mkdtempSync(join(tmpdir(), 'hl-e2e-dry-'));
    execFileSync(
      E2E_TEST,
      ['--ginkgo.dryRun', '--ginkgo.noColor', `--report-dir=${dir}`, '--report-prefix=dry_'],
      {
        stdio: 'ignore',
      },
    );
    const file = readdirSync(dir).find((f) => f.startsWith('junit_dry_'))!;
    names = parseGinkgoJunit(readFileSync(join(dir, file), 'utf8'), file).map((c) => c.name);
  });

  it('lists its specs', function () {
    expect(names.length).to.be.greaterThan(5000);
  });

  it('every cross-check and known limit names a spec of this e2e.test exactly', function () {
    const known = new Set(names);
    const named = [
      ...catalogue.crossCheck.map((c) => c.test),
      ...catalogue.knownLimits.map((k) => k.test),
    ];
    expect(named.filter((n) => !known.has(n))).to.deep.equal([]);
  });

  it('every focus and left-out pattern chooses at least one spec of the universe', function () {
    const universe = names.filter((n) => new RegExp(catalogue.universe).test(n));
    expect(universe.length).to.be.greaterThan(150);
    const idle = [...catalogue.focus, ...catalogue.leftOut]
      .map((e) => e.pattern)
      .filter((p) => !universe.some((n) => new RegExp(p).test(n)));
    expect(idle).to.deep.equal([]);
  });

  it('the cross-checked selection chooses exactly the cross-check specs', function () {
    const selection = selectionFor(
      catalogue,
      { clusterDns: 'hl-cluster-dns' },
      { crossChecked: true },
    );
    const focus = new RegExp(selection.focus);
    const skip = new RegExp(selection.skip);
    const chosen = names.filter((n) => focus.test(n) && !skip.test(n)).sort();
    expect(chosen).to.deep.equal(catalogue.crossCheck.map((c) => c.test).sort());
  });
});
