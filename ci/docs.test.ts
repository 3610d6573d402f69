/**
 * Docs that run: every YAML example in the project's Markdown is a lab spec the schema, the
 * planner and (for kubeadm labs) the provisioning settings accept; every command the README
 * shows — its Commands table and its shell blocks — parses with the program it names.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { expect } from 'chai';
import type { Command } from 'commander';
import { labProgram } from '../lab/cli/program.ts';
import { planLab } from '../lab/plan/plan-lab.ts';
import { provisionSettingsFromText } from '../lab/provision/provision-settings.ts';
import { parseSpecText } from '../lab/spec/load-spec.ts';
import { LabStore } from '../lab/state/lab-store.ts';
import { selectionFromArgv } from '../specs/engine/selection.ts';
import { SELFTEST_ARGS } from '../specs/selftest/selftest-args.ts';

const DOCS = execFileSync('git', ['ls-files', '*.md'], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '');
const SCRIPTS = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The fenced blocks of `lang` in a Markdown text, with the line each starts on. */
function fenced(text: string, lang: string): { line: number; body: string }[] {
  const blocks: { line: number; body: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== `\`\`\`${lang}`) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    blocks.push({ line: i + 1, body: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** Sample values for the README's placeholders. */
const PLACEHOLDERS: Record<string, string> = {
  FILE: 'lab.yaml',
  NAME: 'hybrid',
  NODE: 'cp1',
  N: 'win1',
  FAULT: 'windows-dns-search-list-missing',
  DIR: '/tmp/history',
  'ID,…': 'a,b',
  'CMD…': 'true',
  '…': 'hybrid',
};

/**
 * A README command line as argv: optional parts `[…]` included, the first of `A\|B`
 * alternatives, placeholders replaced by sample values.
 */
export function concreteArgv(synopsis: string): string[] {
  const words = synopsis
    .replace(/[[\]]/g, ' ')
    .replace(/(\S+?)\\\|\S+/g, '$1')
    .split(/\s+/)
    .filter((w) => w !== '');
  return words.map((w) => PLACEHOLDERS[w] ?? w);
}

/** The README's commands: the Commands table's cells (continuations take the first one's prefix) and shell lines. */
function readmeCommands(): { where: string; argv: string[] }[] {
  const text = readFileSync('README.md', 'utf8');
  const found: { where: string; argv: string[] }[] = [];
  const table = text.slice(
    text.indexOf('## Commands'),
    text.indexOf('\n## ', text.indexOf('## Commands') + 3),
  );
  for (const row of table.split('\n').filter((l) => l.startsWith('| `'))) {
    const cell = row.slice(2, row.indexOf(' | ', 2));
    const parts = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const prefix = parts[0]!.includes(' -- ')
      ? parts[0]!.slice(0, parts[0]!.indexOf(' -- ') + 4)
      : '';
    for (const part of parts)
      found.push({
        where: `Commands: ${part}`,
        argv: concreteArgv(part.startsWith('npm ') ? part : prefix + part),
      });
  }
  for (const { line, body } of fenced(text, 'sh'))
    for (const command of body
      .split('\n')
      .flatMap((l) => l.split('&&'))
      .map((c) => c.trim()))
      if (command.startsWith('npm '))
        found.push({ where: `README.md:${line}: ${command}`, argv: concreteArgv(command) });
  return found;
}

/** Which `lab` subcommand an argv reaches, with every action replaced so nothing runs. */
async function labCommandReached(args: string[]): Promise<string> {
  const program = labProgram(new LabStore('/nonexistent'), () => undefined);
  let reached = '';
  const stub = (command: Command, path: string): void => {
    command
      .exitOverride()
      .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    if (path !== '') command.action(() => void (reached = path));
    for (const sub of command.commands) stub(sub, `${path} ${sub.name()}`.trim());
  };
  stub(program, '');
  await program.parseAsync(args, { from: 'user' });
  return reached;
}

/** Parses one `npm …` command with the program its script runs; returns what it reached. */
async function parseNpmCommand(argv: string[]): Promise<string> {
  const [npm, verb, ...rest] = argv;
  expect(npm).to.equal('npm');
  if (verb === 'ci') return 'npm ci';
  const [script, ...afterScript] = verb === 'run' ? rest : [verb!, ...rest];
  const command = SCRIPTS[script!];
  if (command === undefined) throw new Error(`package.json has no script "${script}"`);
  const dashes = afterScript.indexOf('--');
  expect(
    dashes === -1 ? afterScript : afterScript.slice(0, dashes),
    'words before --',
  ).to.deep.equal([]);
  const args = dashes === -1 ? [] : afterScript.slice(dashes + 1);
  const lab = /^tsx lab\/cli\/main\.ts(.*)$/.exec(command);
  if (lab !== null)
    return labCommandReached([...lab[1]!.split(' ').filter((w) => w !== ''), ...args]);
  if (script === 'selftest') {
    parseArgs({ ...SELFTEST_ARGS, args });
    return 'selftest';
  }
  if (script === 'test') {
    selectionFromArgv(args);
    expect(
      args.filter((a) => a.startsWith('-') && !['--grep', '--fgrep', '--invert'].includes(a)),
    ).to.deep.equal([]);
    return 'test';
  }
  expect(args, `${script} takes no arguments`).to.deep.equal([]);
  return script!;
}

describe('docs that run', function () {
  describe('every YAML example in the Markdown is a spec the schema and the planner accept', function () {
    const examples = DOCS.flatMap((file) =>
      fenced(readFileSync(file, 'utf8'), 'yaml').map((b) => ({ ...b, file })),
    );
    it('finds the README examples', function () {
      expect(examples.filter((e) => e.file === 'README.md').length).to.be.at.least(2);
    });
    for (const { file, line, body } of examples) {
      it(`${file}:${line}`, function () {
        const source = `${file}:${line}`;
        const plan = planLab(parseSpecText(body, source), source);
        if (plan.cluster === 'kubeadm') provisionSettingsFromText(body, source, process.cwd());
      });
    }
  });

  describe('every command of the README parses with the program it runs', function () {
    const commands = readmeCommands();
    it('finds the Commands table and the quickstart', function () {
      expect(commands.length).to.be.at.least(15);
    });
    for (const { where, argv } of commands) {
      it(where, async function () {
        const reached = await parseNpmCommand(argv);
        expect(reached, argv.join(' ')).to.not.equal('');
      });
    }
  });

  describe('the argv of a README synopsis', function () {
    it('includes optional parts, takes the first alternative and fills placeholders', function () {
      expect(concreteArgv('npm run lab:up [-- --spec FILE\\|PRESET\\|SHORTHAND]')).to.deep.equal([
        'npm',
        'run',
        'lab:up',
        '--',
        '--spec',
        'lab.yaml',
      ]);
    });
    it('a wrong option of the lab CLI is an error, not a pass', async function () {
      let error: unknown;
      await labCommandReached(['status', '--no-such-option']).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/unknown option/);
    });
  });
});
