import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LabError } from '../../lab/errors.ts';
import {
  CLEAN_DEBIAN_BLOCKS,
  cleanDebianMarker,
  lineCommands,
  readmeBlocks,
  runScript,
  type ReadmeBlock,
} from './readme-blocks.ts';

const QUICK = cleanDebianMarker('quickstart');
const REAL = cleanDebianMarker('real-kubernetes');

/** A README with both blocks; `quick` and `real` are their bodies. */
function readme(quick: string, real = 'npm test'): string {
  return ['# t', '', QUICK, '```sh', quick, '```', 'text', REAL, '```sh', real, '```', ''].join(
    '\n',
  );
}

function parseError(text: string): string {
  try {
    readmeBlocks(text, 'README.md');
  } catch (error) {
    expect(error).to.be.instanceOf(LabError);
    return (error as Error).message;
  }
  expect.fail('the README was accepted');
}

/** Runs a script in bash in `dir`; stdout, exit code. */
function bash(script: string, dir: string, env: Record<string, string> = {}) {
  const r = spawnSync('bash', ['-c', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { out: r.stdout, status: r.status };
}

describe('README blocks CI runs on a clean Debian (ci/tools/readme-blocks.ts)', function () {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-readme-blocks-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads each marked block: its lines as typed, the line it starts on, in run order', () => {
    const text = readme(
      'apt-get update && npm ci\n\n# a comment\nnpm run lab:up -- \\\n  --spec x',
    );
    expect(readmeBlocks(text, 'README.md')).to.deep.equal([
      {
        name: 'quickstart',
        line: 5,
        lines: ['apt-get update && npm ci', 'npm run lab:up -- --spec x'],
      },
      { name: 'real-kubernetes', line: 14, lines: ['npm test'] },
    ]);
    // The blocks run in the order of CLEAN_DEBIAN_BLOCKS, wherever they sit in the README.
    const swapped = [REAL, '```sh', 'b', '```', QUICK, '```sh', 'a', '```'].join('\n');
    expect(readmeBlocks(swapped, 'R').map((b) => b.lines[0])).to.deep.equal(['a', 'b']);
  });

  it('refuses a broken contract, naming the README line', () => {
    expect(parseError(readme('npm ci').replace(QUICK, ''))).to.contain(`README.md lacks ${QUICK}`);
    expect(parseError(readme('npm ci').replace(`${QUICK}\n`, `${QUICK}\n\n`))).to.match(
      /^README\.md:3: .*quickstart --> is not followed by a ```sh line/,
    );
    expect(parseError(readme('npm ci').replace('```sh\nnpm ci', '```bash\nnpm ci'))).to.contain(
      'README.md:3:',
    );
    expect(parseError(`${readme('npm ci')}\n${REAL}\n\`\`\`sh\nx\n\`\`\`\n`)).to.match(
      /^README\.md:13: a second .*real-kubernetes/,
    );
    expect(parseError(readme('npm ci').replace('real-kubernetes', 'real-k8s'))).to.contain(
      'README.md:8: unknown ci:clean-debian block "real-k8s"',
    );
    expect(parseError(readme('npm ci').replace(QUICK, '<!-- ci:clean-debian -->'))).to.contain(
      'README.md:3: a malformed ci:clean-debian marker',
    );
    expect(parseError(readme('\n# nothing\n'))).to.contain('the quickstart block holds no command');
    expect(parseError([QUICK, '```sh', 'npm ci'].join('\n'))).to.contain('no closing ```');
  });

  it('times each command of an `&&` chain on its own, only where splitting changes nothing', () => {
    expect(lineCommands('apt-get update && apt-get install -y a b && npm ci')).to.deep.equal([
      'apt-get update',
      'apt-get install -y a b',
      'npm ci',
    ]);
    for (const line of [
      'a || b && c',
      'a; b && c',
      'a | b && c',
      "echo 'x && y'",
      'echo "$X" && b',
      'a & b && c',
      'a > f && b',
      'a $(b) && c',
    ])
      expect(lineCommands(line), line).to.deep.equal([line]);
  });

  it('the script runs the commands in one shell, in order, and stops at the first that fails with its exit code', () => {
    const blocks: ReadmeBlock[] = [
      { name: 'quickstart', line: 1, lines: ['mkdir sub && cd sub', 'touch a && sh -c "exit 7"'] },
      { name: 'real-kubernetes', line: 9, lines: ['touch never'] },
    ];
    const { out, status } = bash(runScript(blocks, 'README.md'), dir);
    expect(status).to.equal(7);
    expect(existsSync(join(dir, 'sub', 'a')), 'cd carried over to the next line').to.be.true;
    expect(existsSync(join(dir, 'sub', 'never')) || existsSync(join(dir, 'never'))).to.be.false;
    expect(out).to.contain('== README block quickstart (README.md:1)');
    expect(out).to.match(/== [0-9]+\.[0-9] s: mkdir sub\n/);
    expect(out).to.contain('== FAILED (exit 7) after');
    // A line with quotes is one command: splitting it could change what the shell reads.
    expect(out).to.match(
      /== wall time of each README command\n +[0-9.]+ s {2}mkdir sub\n +[0-9.]+ s {2}cd sub\n +[0-9.]+ s {2}touch a && sh -c "exit 7"\n$/,
    );
  });

  it('the script passes when every command passes, and says so per command', () => {
    const blocks: ReadmeBlock[] = [{ name: 'quickstart', line: 1, lines: ["printf '%s' ok > f"] }];
    const { out, status } = bash(runScript(blocks, 'README.md'), dir);
    expect(status).to.equal(0);
    expect(readFileSync(join(dir, 'f'), 'utf8')).to.equal('ok');
    expect(out).to.match(/== [0-9.]+ s: printf '%s' ok > f\n/);
  });

  it("README.md has both markers, and the script CI runs is exactly their blocks' lines", () => {
    const text = readFileSync('README.md', 'utf8');
    const lines = text.split('\n');
    // Read here without the parser: the lines of the ```sh block right after each marker.
    const typed = CLEAN_DEBIAN_BLOCKS.map((name) => {
      const at = lines.indexOf(cleanDebianMarker(name));
      expect(at, `README.md has ${cleanDebianMarker(name)}`).to.be.greaterThan(-1);
      expect(lines[at + 1]).to.equal('```sh');
      const end = lines.indexOf('```', at + 2);
      return lines.slice(at + 2, end).filter((l) => l.trim() !== '');
    });
    expect(typed.flat()).to.have.length.greaterThan(2);
    const list = join(dir, 'commands');
    writeFileSync(list, '');
    const { status } = bash(runScript(readmeBlocks(text, 'README.md'), 'README.md'), dir, {
      HL_README_DRY_RUN: list,
    });
    expect(status).to.equal(0);
    const ran = readFileSync(list, 'utf8').split('\n').slice(0, -1);
    // Split into its `&&` commands or not, the script runs every typed line, in order.
    expect(ran.join(' && ')).to.equal(typed.flat().join(' && '));
    expect(ran).to.include('npm test');
  });
});
