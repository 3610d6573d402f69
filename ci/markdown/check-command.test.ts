import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { checkCommand, labCommandReached, type CommandContext } from './check-command.ts';
import {
  concreteArgv,
  npmScriptsNamed,
  pageCommands,
  shellCommands,
  splitEnv,
} from './doc-commands.ts';

describe('documented commands', function () {
  it('a synopsis becomes argv: optional parts in, first alternative, sample values', function () {
    expect(concreteArgv('npm run lab:up [-- --spec FILE\\|PRESET\\|SHORTHAND]')).to.deep.equal([
      'npm',
      'run',
      'lab:up',
      '--',
      '--spec',
      'lab.yaml',
    ]);
    expect(splitEnv(['A=1', 'B_2=x=y', 'npm', 'C=3'])).to.deep.equal({
      env: { A: '1', B_2: 'x=y' },
      argv: ['npm', 'C=3'],
    });
  });

  it('a sh block: continuations joined, comments dropped, split at && and ;', function () {
    expect(shellCommands('a \\\n  b && c # note\n\n# only a comment\nd; e')).to.deep.equal([
      { offset: 0, text: 'a   b' },
      { offset: 0, text: 'c' },
      { offset: 4, text: 'd' },
      { offset: 4, text: 'e' },
    ]);
  });

  it("a page's commands: command tables (continuations take the prefix) and sh lines", function () {
    const page = [
      '| command | what it does |',
      '| --- | --- |',
      '| `npm run lab -- faults` / `heal` | faults |',
      '',
      '| variable | meaning |',
      '| --- | --- |',
      '| `PROFILE=strict` | not a command |',
      '',
      '```sh',
      'X=1 npm test -- --grep dns',
      '```',
    ].join('\n');
    expect(pageCommands('p.md', page)).to.deep.equal([
      {
        where: 'p.md: command table: npm run lab -- faults',
        env: {},
        argv: ['npm', 'run', 'lab', '--', 'faults'],
      },
      { where: 'p.md: command table: heal', env: {}, argv: ['npm', 'run', 'lab', '--', 'heal'] },
      {
        where: 'p.md:10: X=1 npm test -- --grep dns',
        env: { X: '1' },
        argv: ['npm', 'test', '--', '--grep', 'dns'],
      },
    ]);
  });

  it('names every npm script a text mentions, without a sentence-ending dot', function () {
    expect(
      npmScriptsNamed('run `npm run lab:up`, then npm run check. Or npm run --silent bench'),
    ).to.deep.equal(['lab:up', 'check', 'bench']);
  });
});

describe('checking a documented command', function () {
  const dir = mkdtempSync(join(tmpdir(), 'hl-doc-commands-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const broken = join(dir, 'broken.sh');
  writeFileSync(broken, 'if true; then echo\n');
  const ctx: CommandContext = {
    scripts: {
      lab: 'tsx lab/cli/main.ts',
      test: 'exec node --import tsx node_modules/mocha/bin/mocha.js --config .mocharc.suite.json',
      selftest: 'tsx specs/selftest/selftest-main.ts',
      check: 'npm run typecheck',
    },
    files: new Set(['ci/periodic.sh', broken, 'specs/report/junit.xsd']),
    installable: (packages) => new Set(packages.filter((p) => p !== 'no-such-package')),
  };
  const check = (line: string): Promise<string> =>
    checkCommand({ where: 'test', ...splitEnv(concreteArgv(line)) }, ctx);
  const failure = async (line: string): Promise<string> => {
    try {
      await check(line);
    } catch (error) {
      return String(error);
    }
    throw new Error(`${line}: passed`);
  };

  it('passes what the programs accept', async function () {
    expect(await check('npm run lab -- break FAULT --node win1')).to.equal('break');
    expect(await check('CONCURRENCY=1 npm test -- --grep dns --serial')).to.equal('test');
    expect(await check('npm run selftest -- --fault a,b --nodes alternate')).to.equal('selftest');
    expect(await check('ARTIFACTS=/tmp/x ci/periodic.sh k8s-netns-1-2-2 -- --grep dns')).to.equal(
      'ci/periodic.sh',
    );
    expect(await check('apt-get install -y iproute2 tini')).to.equal('apt-get install 2 packages');
    expect(await check('apt-get update -qq')).to.equal('apt-get update');
  });

  it('fails what they do not', async function () {
    expect(await failure('npm run nope')).to.match(/no script "nope"/);
    expect(await failure('npm run check -- --fast')).to.match(/check takes no arguments/);
    expect(await failure('npm run lab -- status --no-such-option')).to.match(/unknown option/);
    expect(await failure('npm run lab -- brake x')).to.match(/unknown command/);
    expect(await failure('npm test -- --bail')).to.match(/takes no --bail/);
    expect(await failure('PROFILE=bogus npm test')).to.match(/PROFILE/);
    expect(await failure('CONCURRENCY=abc npm run selftest')).to.match(/CONCURRENCY/);
    expect(await failure('npm run selftest -- --nodes every')).to.match(/--nodes every/);
    expect(await failure('ci/periodic.sh no-such-preset')).to.match(/no-such-preset/);
    expect(await failure(`bash ${broken}`)).to.match(/syntax error|unexpected end/);
    expect(await failure('bash ci/missing.sh')).to.match(/no script ci\/missing.sh/);
    expect(await failure('apt-get install -y iproute2 no-such-package')).to.match(
      /no-such-package/,
    );
    expect(await failure('xmllint --noout --schema nope.xsd x.xml')).to.match(/no schema nope.xsd/);
    expect(await failure('curl https://example.org')).to.match(/no parser for curl/);
  });

  it('a lab command with no action reached is told apart', async function () {
    expect(await labCommandReached(['status'])).to.equal('status');
  });
});
