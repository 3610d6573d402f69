import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Command } from 'commander';
import { HistoryError } from '../history/history-error.ts';
import { resultsDocument } from '../testing/history-records.ts';
import { registerHistoryCommands } from './history-commands.ts';

/** A results.json as the suite writes it. */
function resultsFile(dir: string, runId: string, startedAt: string, failing: boolean): string {
  const cells = ['dns/fqdn/windows/dns', 'outbound-nat/windows/win1/ip'].map((cell, i) => ({
    cell,
    verdict: failing && i === 1 ? ('fail' as const) : ('pass' as const),
    detail: 'far end saw 192.168.200.13',
  }));
  const file = join(dir, `${runId}.json`);
  writeFileSync(file, JSON.stringify(resultsDocument(cells, { run: { runId, startedAt } })));
  return file;
}

async function lab(...args: string[]): Promise<string> {
  const program = new Command('lab').exitOverride();
  registerHistoryCommands(program);
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string) => written.push(chunk) > 0;
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  return written.join('');
}

describe('lab history add / report', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'hl-history-cli-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('adds runs to the store and writes trend.html and trend.md naming failing cells', async () => {
    const dir = tempDir();
    const store = join(dir, 'store');
    const out = join(dir, 'out');
    const a = resultsFile(dir, 'r1', '2026-11-20T02:00:00Z', false);
    const b = resultsFile(dir, 'r2', '2026-11-21T02:00:00Z', true);
    expect(await lab('history', 'add', a, '--store', store)).to.contain('added run r1 of hybrid');
    expect(await lab('history', 'add', b, '--store', store, '--link', 'https://ci/2')).to.contain(
      '(failed, emulated)',
    );
    expect(await lab('history', 'add', b, '--store', store)).to.contain('nothing added');
    const said = await lab('history', 'report', '--store', store, '--out', out, '--window', '5');
    expect(said).to.contain('hybrid (EMULATED): 2 of 2 runs, 1 failing now, 0 flaky');
    expect(said).to.contain('failing since r2: outbound-nat/windows/win1/ip');
    expect(existsSync(join(out, 'trend.html'))).to.be.true;
    expect(readFileSync(join(out, 'trend.md'), 'utf8')).to.contain('### ❌ Failing now (1)');
  });

  it('rejects a window that is not a whole number of runs', async () => {
    const dir = tempDir();
    let error: unknown;
    try {
      await lab('history', 'report', '--store', dir, '--window', '0');
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(HistoryError);
    expect((error as Error).message).to.contain(
      '--window: expected a whole number of runs ≥ 1, got "0"',
    );
  });
});
