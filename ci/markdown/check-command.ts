/**
 * Parses a documented command with the program it names, running nothing: npm scripts with the
 * lab CLI's commander program (every action stubbed), the suite's and the self-test's argument
 * and setting parsers; shell scripts with `bash -n`; apt-get's packages against apt's lists.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command } from 'commander';
import { SELFTEST_NODE_CHOICES } from '../../lab/faults/fault-targets.ts';
import { labProgram } from '../../lab/cli/program.ts';
import { loadSpec } from '../../lab/spec/load-spec.ts';
import { LabStore } from '../../lab/state/lab-store.ts';
import { suiteSettings } from '../../specs/engine/suite-settings.ts';
import { SELFTEST_ARGS } from '../../specs/selftest/selftest-args.ts';
import { e2eSettings } from '../../specs/upstream/e2e-settings.ts';
import { parseMutationArgs } from '../mutation/mutation-args.ts';
import type { DocCommand } from './doc-commands.ts';

/** What a check needs of the repository. */
export interface CommandContext {
  /** package.json's scripts. */
  scripts: Readonly<Record<string, string>>;
  /** Repository-relative paths of its files. */
  files: ReadonlySet<string>;
  /** Debian packages apt can install here, of those asked for. */
  installable(packages: readonly string[]): Set<string>;
}

/** Which `lab` subcommand an argv reaches, with every action replaced so nothing runs. */
export async function labCommandReached(args: string[]): Promise<string> {
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

/** The suite's arguments (mocha's selection flags, `--serial`) and settings, as a run reads them. */
function suiteArgs(args: readonly string[], env: Record<string, string>): void {
  suiteSettings(env, args);
  for (let i = 0; i < args.length; i++) {
    if (['--grep', '--fgrep', '-g', '-f'].includes(args[i]!)) i++;
    else if (!['--invert', '-i', '--serial'].includes(args[i]!))
      throw new Error(`the suite takes no ${args[i]!}`);
  }
}

/** The arguments of the repository's scripts that take some, checked as each script reads them. */
const SCRIPT_ARGS: Record<string, (args: readonly string[], env: Record<string, string>) => void> =
  {
    // usage: ci/periodic.sh [PRESET|SPEC_FILE|SHORTHAND] [-- MOCHA_ARGS...]
    'ci/periodic.sh': (args, env) => {
      const dashes = args.indexOf('--');
      const before = dashes === -1 ? args : args.slice(0, dashes);
      if (before.length > 1) throw new Error(`periodic.sh takes one spec, got ${before.join(' ')}`);
      if (before[0] !== undefined) loadSpec(before[0], process.cwd());
      suiteArgs(dashes === -1 ? [] : args.slice(dashes + 1), env);
    },
    // usage: docs/screenshot.sh [OUT.png]
    'docs/screenshot.sh': (args) => {
      if (args.length > 1 || (args[0] !== undefined && !args[0].endsWith('.png')))
        throw new Error(`screenshot.sh takes one .png path, got ${args.join(' ')}`);
    },
  };

/** Parses `npm …` with what its script runs; returns what it reached. */
async function npmCommand(command: DocCommand, ctx: CommandContext): Promise<string> {
  const [, verb, ...rest] = command.argv;
  if (verb === 'ci') return 'npm ci';
  const [script, ...afterScript] =
    verb === 'run' ? rest.filter((w) => w !== '--silent') : [verb!, ...rest];
  const body = ctx.scripts[script!];
  if (body === undefined) throw new Error(`package.json has no script "${script}"`);
  const dashes = afterScript.indexOf('--');
  const before = dashes === -1 ? afterScript : afterScript.slice(0, dashes);
  if (before.length > 0) throw new Error(`words before --: ${before.join(' ')}`);
  const args = dashes === -1 ? [] : afterScript.slice(dashes + 1);
  const lab = /^tsx lab\/cli\/main\.ts(.*)$/.exec(body);
  if (lab !== null)
    return labCommandReached([...lab[1]!.split(' ').filter((w) => w !== ''), ...args]);
  if (script === 'selftest') {
    const { values } = parseArgs({ ...SELFTEST_ARGS, args });
    const nodes = values.nodes ?? 'ends';
    if (!(SELFTEST_NODE_CHOICES as readonly string[]).includes(nodes))
      throw new Error(`--nodes ${nodes}: expected ${SELFTEST_NODE_CHOICES.join('|')}`);
    suiteSettings(command.env, []);
    return 'selftest';
  }
  if (script === 'mutation') {
    parseMutationArgs(args);
    return 'mutation';
  }
  if (script === 'e2e') {
    e2eSettings(args, command.env);
    return 'e2e';
  }
  if (script === 'test') {
    suiteArgs(args, command.env);
    return 'test';
  }
  const script_ = /^bash (\S+\.sh)$/.exec(body);
  if (script_ !== null) return shellScript(script_[1]!, args, command.env, ctx);
  if (args.length > 0) throw new Error(`${script} takes no arguments`);
  return script!;
}

/** A repository shell script: there, parsed by bash, and its arguments where we know them. */
function shellScript(
  path: string,
  args: readonly string[],
  env: Record<string, string>,
  ctx: CommandContext,
): string {
  const file = path.replace(/^\.\//, '');
  if (!ctx.files.has(file)) throw new Error(`no script ${file} in the repository`);
  execFileSync('bash', ['-n', file], { stdio: 'pipe' });
  const checkArgs = SCRIPT_ARGS[file];
  if (checkArgs !== undefined) checkArgs(args, env);
  else if (args.length > 0)
    throw new Error(`${file}: its arguments are not checked; add it to SCRIPT_ARGS`);
  return file;
}

/** The apt-get options a documented command may use. */
const APT_OPTIONS = ['-y', '-q', '-qq', '--no-install-recommends'];

/** `apt-get update`, `apt-get install -y PACKAGE…`: every package one apt can install. */
function aptGet(argv: readonly string[], ctx: CommandContext): string {
  const [, verb, ...rest] = argv;
  const options = rest.filter((w) => w.startsWith('-'));
  const unknownOptions = options.filter((o) => !APT_OPTIONS.includes(o));
  if (unknownOptions.length > 0)
    throw new Error(`apt-get options not checked: ${unknownOptions.join(' ')}`);
  const packages = rest.filter((w) => !w.startsWith('-'));
  if (verb === 'update' && packages.length === 0) return 'apt-get update';
  if (verb !== 'install')
    throw new Error(`apt-get ${verb ?? ''}: only update and install are shown`);
  const known = ctx.installable(packages);
  const unknown = packages.filter((p) => !known.has(p));
  if (unknown.length > 0)
    throw new Error(`apt has no candidate for ${unknown.join(' ')} (empty lists? apt-get update)`);
  return `apt-get install ${packages.length} packages`;
}
/** `xmllint --noout --schema XSD FILE`: the schema is the repository's. */
function xmllint(argv: readonly string[], ctx: CommandContext): string {
  const { values, positionals } = parseArgs({
    args: argv.slice(1),
    options: { noout: { type: 'boolean' }, schema: { type: 'string' } },
    allowPositionals: true,
  });
  if (values.schema !== undefined && !ctx.files.has(values.schema))
    throw new Error(`no schema ${values.schema} in the repository`);
  if (positionals.length !== 1) throw new Error('xmllint: one file to check');
  return 'xmllint';
}

/** Checks one command; returns what it reached, throws what is wrong with it. */
export async function checkCommand(command: DocCommand, ctx: CommandContext): Promise<string> {
  const [program, ...args] = command.argv;
  if (program === 'npm') return npmCommand(command, ctx);
  if (program === 'bash') return shellScript(args[0] ?? '', args.slice(1), command.env, ctx);
  if (program === 'apt-get') return aptGet(command.argv, ctx);
  if (program === 'xmllint') return xmllint(command.argv, ctx);
  if (program !== undefined && program.includes('/')) {
    const file = program.replace(/^\.\//, '');
    if (ctx.files.has(file) && (statSync(file).mode & 0o111) === 0)
      throw new Error(`${file} is not executable: run it with bash`);
    return shellScript(file, args, command.env, ctx);
  }
  throw new Error(
    `no parser for ${program ?? 'an empty command'}: add one to ci/markdown/check-command.ts`,
  );
}

/** apt's candidates for `packages` on this machine (`apt-cache policy`). */
export function aptInstallable(packages: readonly string[]): Set<string> {
  if (packages.length === 0) return new Set();
  const out = execFileSync('apt-cache', ['policy', ...packages], { encoding: 'utf8' });
  const found = new Set<string>();
  let current = '';
  for (const line of out.split('\n')) {
    const name = /^(\S+):$/.exec(line);
    if (name !== null) current = name[1]!;
    else if (/^\s+Candidate: /.test(line) && !line.includes('(none)')) found.add(current);
  }
  return found;
}
