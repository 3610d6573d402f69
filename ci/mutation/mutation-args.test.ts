import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabError } from '../../lab/errors.ts';
import {
  functionRanges,
  mutatedBy,
  parseMutationArgs,
  scopeArgs,
  SCOPES,
} from './mutation-args.ts';
import { incrementalFile, reviewReport } from './run-mutation.ts';

describe('npm run mutation arguments', () => {
  it('defaults to the core scope, incremental', () => {
    expect(parseMutationArgs([])).to.deep.equal({ scope: 'core', full: false, changed: false });
  });

  it('takes --full and --scope in either order and form', () => {
    expect(parseMutationArgs(['--scope', 'ci', '--full'])).to.deep.equal({
      scope: 'ci',
      full: true,
      changed: false,
    });
    expect(parseMutationArgs(['--full', '--scope=ci'])).to.deep.equal({
      scope: 'ci',
      full: true,
      changed: false,
    });
    expect(parseMutationArgs(['--changed', '--scope=ci'])).to.deep.equal({
      scope: 'ci',
      full: false,
      changed: true,
    });
    expect(() => parseMutationArgs(['--changed', '--full'])).to.throw(LabError, /exclude/);
  });

  it('refuses an unknown scope, a missing one and an unknown argument, naming them', () => {
    expect(() => parseMutationArgs(['--scope', 'nightly'])).to.throw(LabError, /--scope nightly/);
    expect(() => parseMutationArgs(['--scope'])).to.throw(LabError, /--scope \(missing\)/);
    expect(() => parseMutationArgs(['--scope', 'toString'])).to.throw(LabError, /toString/);
    expect(() => parseMutationArgs(['--force'])).to.throw(LabError, /unknown argument --force/);
  });

  it("passes the ci scope's files, ranges and tests to Stryker and nothing for core", () => {
    const sweep = 'lab/cluster/workload/endpoint-sweep.mjs';
    const text = SCOPES.ci.mutate[1].functions.map((f) => `function ${f}() {\n  x;\n}`);
    const args = scopeArgs('ci', (file) => (file === sweep ? text.join('\n') : ''));
    expect(args[0]).to.equal('--mutate');
    expect(args[1]!.split(',')).to.deep.equal([
      'specs/engine/judge.ts',
      ...text.map((_, i) => `${sweep}:${i * 3 + 1}-${i * 3 + 3}`),
      'lab/faults/impacts.ts',
      'lab/faults/cell-selector.ts',
      'lab/text/glob.ts',
    ]);
    expect(args.slice(2)).to.deep.equal(['--testFiles', SCOPES.ci.tests.join(',')]);
    expect(scopeArgs('core', () => '')).to.deep.equal([]);
  });

  it('finds a function from its head to its closing brace, exported, async or not', () => {
    const text = [
      '/** a */',
      'export async function first(a) {',
      '  if (a) {',
      '  }',
      '}',
      'function firstly() {}',
      'function second() {',
      '}',
    ].join('\n');
    expect(functionRanges('f.mjs', text, ['second', 'first'])).to.deep.equal([
      'f.mjs:7-8',
      'f.mjs:2-5',
    ]);
    expect(() => functionRanges('f.mjs', text, ['third'])).to.throw(
      LabError,
      'f.mjs has no top-level function third',
    );
  });

  it('keeps each scope its own incremental state', () => {
    const root = mkdtempSync(join(tmpdir(), 'mutation-args-'));
    writeFileSync(join(root, 'stryker.config.json'), '{}');
    writeFileSync(join(root, 'package-lock.json'), '{}');
    const ci = incrementalFile(root, '/cache', 'ci');
    expect(ci).to.match(/^\/cache\/[0-9a-f]{16}\/stryker-incremental\.json$/);
    expect(incrementalFile(root, '/cache', 'core')).to.not.equal(ci);
    expect(incrementalFile(root, '/cache', 'ci')).to.equal(ci);
    writeFileSync(join(root, 'stryker.config.json'), '{"concurrency":2}');
    expect(incrementalFile(root, '/cache', 'ci')).to.not.equal(ci);
  });

  it('reads a mutate list as Stryker does: a later !glob drops what an earlier glob took', () => {
    const globs = ['specs/engine/*.ts', '!specs/engine/matrix-suite.ts', '!**/*.test.ts'];
    expect(mutatedBy(globs, 'specs/engine/judge.ts')).to.equal(true);
    expect(mutatedBy(globs, 'specs/engine/matrix-suite.ts')).to.equal(false);
    expect(mutatedBy(globs, 'specs/engine/judge.test.ts')).to.equal(false);
    expect(mutatedBy(globs, 'specs/matrix/rows.ts')).to.equal(false);
  });
});

describe('reviewing a scope', () => {
  it('calls an entry stale only in a file the scope mutates whole', () => {
    const root = mkdtempSync(join(tmpdir(), 'mutation-review-'));
    mkdirSync(join(root, 'test-results/mutation'), { recursive: true });
    writeFileSync(join(root, 'stryker.config.json'), '{"thresholds":{"break":80}}');
    const killed = {
      id: '1',
      mutatorName: 'ConditionalExpression',
      replacement: 'true',
      status: 'Killed',
      location: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } },
    };
    const files = Object.fromEntries(
      ['specs/engine/judge.ts', 'lab/cluster/workload/endpoint-sweep.mjs'].map((f) => [
        f,
        { source: 'x', mutants: [killed] },
      ]),
    );
    writeFileSync(join(root, 'test-results/mutation/mutation.json'), JSON.stringify({ files }));
    const entry = (file: string) => ({
      file,
      mutator: 'ConditionalExpression',
      original: 'x',
      replacement: 'true',
      reason: 'no input tells them apart',
    });
    const entries = Object.keys(files).map(entry);
    writeFileSync(join(root, 'stryker-equivalent.json'), JSON.stringify({ equivalent: entries }));
    expect(reviewReport(root, 'ci').stale).to.deep.equal([entries[0]]);
    expect(reviewReport(root, 'core').stale).to.deep.equal(entries);
    expect(reviewReport(root, 'ci').scores.find((s) => s.folder === 'all')?.score).to.equal(100);
  });
});
