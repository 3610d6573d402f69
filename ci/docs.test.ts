/**
 * Docs that run, on every Markdown page of the repository: every YAML example is a lab spec the
 * schema, the planner and (for kubeadm labs) the provisioning settings accept; every command
 * shown — command tables and ```sh lines — parses with the program it names; every relative link
 * reaches a file (and its #anchor a heading); every `npm run X` is a script. The reference tables
 * (rows, faults, Windows expectations, presets) list exactly what the code has.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { FAULT_CATALOGUE } from '../lab/faults/fault-catalogue.ts';
import { planLab } from '../lab/plan/plan-lab.ts';
import { provisionSettingsFromText } from '../lab/provision/provision-settings.ts';
import { loadSpec, parseSpecText, presetNames } from '../lab/spec/load-spec.ts';
import { loadProfile } from '../specs/engine/profile.ts';
import { expandCells } from '../specs/matrix/expand-cells.ts';
import { MATRIX } from '../specs/matrix/rows.ts';
import { aptInstallable, checkCommand, type CommandContext } from './markdown/check-command.ts';
import { npmScriptsNamed, pageCommands } from './markdown/doc-commands.ts';
import { brokenLinks } from './markdown/links.ts';
import { fenced, tables, type Table } from './markdown/markdown.ts';

/** Tracked and new (not ignored) files: a page written but not yet added is checked too. */
const FILES = new Set(
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '' && existsSync(f)),
);
const PAGES = [...FILES].filter((f) => f.endsWith('.md')).sort();
const read = (path: string): string => readFileSync(path, 'utf8');
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
const CONTEXT: CommandContext = { scripts: SCRIPTS, files: FILES, installable: aptInstallable };

/** The first table of `page` whose header starts with `first`. */
function tableOf(page: string, first: string): Table {
  const table = tables(read(page)).find((t) => t.header[0] === first);
  if (table === undefined) throw new Error(`${page} has no table starting with "${first}"`);
  return table;
}
/** A table cell's `code`, unquoted. */
const code = (cell: string): string => /^`([^`]+)`/.exec(cell)?.[1] ?? cell;

describe('docs that run', function () {
  it('finds the README and the docs/ pages', function () {
    expect(PAGES).to.include.members(['README.md', 'docs/suite.md', 'docs/spec.md']);
  });

  it('README.md is at most 200 lines', function () {
    expect(read('README.md').split('\n').length - 1).to.be.at.most(200);
  });

  describe('every YAML example is a spec the schema and the planner accept', function () {
    const examples = PAGES.flatMap((page) =>
      fenced(read(page), 'yaml').map((b) => ({ ...b, page })),
    );
    it('finds the spec and artifact-cache examples', function () {
      expect(examples.map((e) => e.page)).to.include.members(['docs/spec.md', 'docs/kubeadm.md']);
    });
    for (const { page, line, body } of examples) {
      it(`${page}:${line}`, function () {
        const source = `${page}:${line}`;
        const plan = planLab(parseSpecText(body, source), source);
        if (plan.cluster === 'kubeadm') provisionSettingsFromText(body, source, process.cwd());
      });
    }
  });

  describe('every command shown parses with the program it names', function () {
    const commands = PAGES.flatMap((page) => pageCommands(page, read(page)));
    it("finds the README's command table and both quickstart blocks", function () {
      const readme = commands.filter((c) => c.where.startsWith('README.md'));
      expect(readme.length).to.be.at.least(20);
      expect(readme.map((c) => c.argv.join(' '))).to.include.members([
        'npm run lab:up -- --spec netns-kubeadm',
        'bash vagrant/artifacts/kubernetes/build.sh',
      ]);
    });
    for (const command of commands) {
      it(command.where, async function () {
        this.timeout(20_000);
        expect(await checkCommand(command, CONTEXT), command.argv.join(' ')).to.not.equal('');
      });
    }
  });

  describe('every relative link reaches a file, and its #anchor a heading', function () {
    for (const page of PAGES) {
      it(page, function () {
        expect(brokenLinks(page, { files: FILES, read })).to.deep.equal([]);
      });
    }
  });

  it('every `npm run X` named is a script of package.json', function () {
    const missing = PAGES.flatMap((page) =>
      npmScriptsNamed(read(page))
        .filter((s) => SCRIPTS[s] === undefined)
        .map((s) => `${page}: npm run ${s}`),
    );
    expect(missing).to.deep.equal([]);
  });

  describe('the reference tables list what the code has', function () {
    it('docs/suite.md: every matrix row, with its cells on the default lab', function () {
      const plan = planLab(loadSpec('hybrid', process.cwd()).spec);
      const cells = expandCells(MATRIX, plan.nodes);
      const counts = new Map<string, number>();
      for (const c of cells) {
        const kind = c.meta.row.split('/')[0]!;
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      const rows = tableOf('docs/suite.md', 'row').rows.map((r) => [code(r[0]!), Number(r[1])]);
      expect(rows).to.deep.equal([...counts.entries()]);
    });

    it('docs/faults.md: every fault of the catalogue', function () {
      const listed = tableOf('docs/faults.md', 'fault').rows.map((r) => code(r[0]!));
      expect(listed).to.deep.equal(FAULT_CATALOGUE.map((f) => f.id));
    });

    it("docs/windows.md: every profile's Windows expectation, with its outcome and link", function () {
      const listed = tableOf('docs/windows.md', 'profile').rows.map((r) => [
        r[0],
        code(r[1]!),
        code(r[2]!),
        r[3] === 'without DSR',
        /\]\(([^)]+)\)/.exec(r[4]!)?.[1],
      ]);
      const expected = ['strict', 'known-limitations'].flatMap((name) =>
        loadProfile(name)
          .expectations.filter((e) => e.cells.includes('windows'))
          .map((e) => [name, e.cells, e.expect, e.when?.windowsDsr === false, e.link]),
      );
      expect(listed).to.deep.equal(expected);
    });

    it("README.md and docs/suite.md: the default lab's cell count", function () {
      const plan = planLab(loadSpec('hybrid', process.cwd()).spec);
      const count = expandCells(MATRIX, plan.nodes).length;
      expect(/against it, (\d[\d,]*) cells\./.exec(read('README.md'))?.[1]).to.equal(String(count));
      expect(
        /The default lab \(5 nodes\) has\s+(\d[\d,]*)/.exec(read('docs/suite.md'))?.[1],
      ).to.equal(String(count));
    });

    it('README.md: every preset', function () {
      const listed = tableOf('README.md', 'preset').rows.map((r) => code(r[0]!));
      expect([...listed].sort()).to.deep.equal(presetNames());
    });
  });
});
