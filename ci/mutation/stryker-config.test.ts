/** stryker.config.json and stryker-equivalent.json against the tree: neither may point at nothing. */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { globToRegExp } from '../../lab/text/glob.ts';
import { readEquivalents } from './equivalents.ts';
import { specFiles } from './spec-files.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const config = JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as {
  mutate: string[];
  mochaEsm: { spec: string[]; ignore: string[] };
  thresholds: { break: number };
};

/** Whether Stryker's `mutate` list takes `file`: some glob matches it and no `!glob` after it. */
function mutated(file: string): boolean {
  let taken = false;
  for (const glob of config.mutate) {
    if (glob.startsWith('!')) taken &&= !globToRegExp(glob.slice(1)).test(file);
    else taken ||= globToRegExp(glob).test(file);
  }
  return taken;
}

describe('mutation testing config', () => {
  it('every mutate and spec glob names files that exist', () => {
    for (const glob of config.mutate.filter((g) => !g.startsWith('!')))
      expect(specFiles(ROOT, [glob], []), glob).to.not.be.empty;
    for (const glob of [...config.mochaEsm.spec, ...config.mochaEsm.ignore])
      expect(specFiles(ROOT, [glob], []), glob).to.not.be.empty;
  });

  it('mutates the judging core and none of the tests', () => {
    for (const file of [
      'specs/engine/judge.ts',
      'lab/faults/impacts.ts',
      'lab/cluster/workload/endpoint-sweep.mjs',
    ])
      expect(mutated(file), file).to.equal(true);
    for (const file of [
      'specs/engine/judge.test.ts',
      'specs/engine/matrix-suite.ts',
      'lab/faults/fault-engine.ts',
    ])
      expect(mutated(file), file).to.equal(false);
  });

  it('breaks at 80 or more', () => {
    expect(config.thresholds.break).to.be.at.least(80);
  });

  it('lists as equivalent only mutants of mutated files whose original text is still there', () => {
    for (const e of readEquivalents(join(ROOT, 'stryker-equivalent.json'))) {
      const where = `${e.file} ${e.mutator} ${JSON.stringify(e.original)}`;
      expect(existsSync(join(ROOT, e.file)), where).to.equal(true);
      expect(mutated(e.file), where).to.equal(true);
      expect(readFileSync(join(ROOT, e.file), 'utf8'), where).to.contain(e.original);
    }
  });
});
