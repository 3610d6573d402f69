// The nightly job definitions parse, and everything they run exists in this repository.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { tables } from './markdown/markdown.ts';
import { presetNames } from '../lab/spec/load-spec.ts';
import { isShorthand } from '../lab/spec/shorthand.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Yaml = Record<string, unknown>;

/** A YAML scalar as text; anything else (absent, a mapping) as "". */
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Parses strictly: any YAML error or duplicate key fails the test with its position. */
function load(path: string): Yaml {
  const doc = parseDocument(readFileSync(`${ROOT}${path}`, 'utf8'), {
    uniqueKeys: true,
    prettyErrors: true,
  });
  expect(
    doc.errors.map((e) => e.message),
    path,
  ).to.deep.equal([]);
  return doc.toJS() as Yaml;
}

/** Every `ci/…` script a command line names. */
function scriptsIn(text: string): string[] {
  return [...text.matchAll(/(?:^|[\s"'(=])(?:\.\/)?(ci\/[\w./-]+\.(?:sh|ts))/g)].map((m) => m[1]!);
}

function expectRunnable(script: string): void {
  expect(existsSync(`${ROOT}${script}`), `${script} exists`).to.be.true;
  if (script.endsWith('.sh')) accessSync(`${ROOT}${script}`, constants.X_OK);
}

function expectPreset(name: string): void {
  expect(presetNames().includes(name) || isShorthand(name), `${name} is a preset or shorthand`).to
    .be.true;
}

const CRON = /^(\S+\s+){4}\S+$/;

describe('ci/github/nightly.yml', () => {
  const wf = load('ci/github/nightly.yml');
  const jobs = wf.jobs as Record<string, Yaml>;
  const conformance = jobs.conformance!;
  const steps = conformance.steps as Yaml[];
  const packageScripts = (
    JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }
  ).scripts;

  it('runs on a schedule and by hand', () => {
    const on = wf.on as Yaml;
    expect((on.schedule as Yaml[]).map((s) => s.cron)).to.satisfy(
      (c: string[]) => c.length > 0 && c.every((x) => CRON.test(x)),
    );
    expect(on).to.have.property('workflow_dispatch');
  });

  it('runs a matrix of existing presets on self-hosted libvirt runners, one lab per hypervisor', () => {
    const include = (conformance.strategy as { matrix: { include: Yaml[] } }).matrix.include;
    for (const entry of include) expectPreset(String(entry.preset));
    expect(conformance['runs-on']).to.include.members(['self-hosted', 'libvirt']);
    const concurrency = conformance.concurrency as Yaml;
    expect(String(concurrency.group)).to.contain('${{ matrix.hypervisor }}');
    expect(concurrency['cancel-in-progress']).to.equal(false);
    expect((wf.concurrency as Yaml)['cancel-in-progress']).to.equal(false);
  });

  it('runs ci/periodic.sh and publishes summary, JUnit and artifacts even when it fails', () => {
    const runs = steps.map((s) => str(s.run));
    expect(runs.some((r) => scriptsIn(r).includes('ci/periodic.sh'))).to.be.true;
    const summary = steps.find((s) => str(s.run).includes('>> "$GITHUB_STEP_SUMMARY"'));
    expect(summary?.if).to.equal('always()');
    expect(String(summary?.run)).to.contain('summary.md');
    const junit = steps.find((s) => str(s.uses).startsWith('mikepenz/action-junit-report@'));
    expect(junit?.if).to.equal('always()');
    expect(String((junit?.with as Yaml).report_paths)).to.contain('junit_');
    const upload = steps.find((s) => str(s.uses).startsWith('actions/upload-artifact@'));
    expect(upload?.if).to.equal('always()');
  });

  it('names only scripts and npm scripts that exist, and pins every action to a version', () => {
    for (const job of Object.values(jobs)) {
      for (const step of job.steps as Yaml[]) {
        const run = str(step.run);
        for (const script of scriptsIn(run)) expectRunnable(script);
        for (const m of run.matchAll(/npm run (?:--silent )?([\w:-]+)/g)) {
          expect(packageScripts, `npm script ${m[1]}`).to.have.property(m[1]!);
        }
        if (step.uses !== undefined) expect(str(step.uses)).to.match(/^[\w.-]+\/[\w./-]+@v\d+$/);
      }
    }
  });

  it('uses only the contexts GitHub allows in job-level env', () => {
    for (const [name, job] of Object.entries(jobs)) {
      for (const value of Object.values((job.env ?? {}) as Yaml)) {
        for (const m of str(value).matchAll(/\$\{\{\s*(\w+)\./g)) {
          expect(
            ['github', 'needs', 'strategy', 'matrix', 'vars', 'secrets', 'inputs'],
            `${name}: ${m[1]}`,
          ).to.include(m[1]);
        }
      }
    }
  });

  it('runs every mutant in its own job, as root in a privileged container, and keeps the report', () => {
    const mutation = jobs.mutation!;
    const runs = (mutation.steps as Yaml[]).map((s) => str(s.run)).join('\n');
    expect(runs).to.match(/npm run mutation -- --full/);
    expect((mutation.container as Yaml).options).to.equal('--privileged');
    const upload = (mutation.steps as Yaml[]).find((s) =>
      str(s.uses).startsWith('actions/upload-artifact@'),
    );
    expect(upload?.if).to.equal('always()');
    expect((upload?.with as Yaml).path).to.equal('test-results/mutation');
    // The trend job reads every nightly-* artifact as a preset's results.
    expect(String((upload?.with as Yaml).name)).to.not.match(/^nightly-/);
  });

  it('self-tests the whole catalogue on both ends of each OS, every witness, and keeps the report', () => {
    const job = jobs.selftest!;
    const runs = (job.steps as Yaml[]).map((s) => str(s.run)).join('\n');
    expect(runs).to.contain('npm run --silent selftest -- --nodes ends');
    expect(runs).to.not.match(/--witness|--slice|--fault/);
    expect(runs).to.contain('lab:down');
    const upload = (job.steps as Yaml[]).find((s) =>
      str(s.uses).startsWith('actions/upload-artifact@'),
    );
    expect(upload?.if).to.equal('always()');
    expect(String((upload?.with as Yaml).name)).to.not.match(/^nightly-/);
  });

  it('keeps one history across presets in the trend job', () => {
    const runs = (jobs.trend!.steps as Yaml[]).map((s) => str(s.run)).join('\n');
    expect(runs).to.contain('lab -- history add');
    expect(runs).to.contain('lab -- history report');
    expect(jobs.trend!.if).to.equal('always()');
  });
});

describe('ci/prow/periodics.yaml', () => {
  const periodics = load('ci/prow/periodics.yaml').periodics as Yaml[];

  it('defines decorated periodics with a schedule, a workdir clone and resources', () => {
    expect(periodics.length).to.be.greaterThan(0);
    for (const job of periodics) {
      expect(job.name, 'name').to.match(/^[a-z0-9-]+$/);
      expect(job.decorate, `${String(job.name)} decorate`).to.equal(true);
      expect(CRON.test(str(job.cron)) || /^\d+[hm]$/.test(str(job.interval))).to.be.true;
      expect((job.extra_refs as Yaml[]).some((r) => r.workdir === true)).to.be.true;
      const container = ((job.spec as Yaml).containers as Yaml[])[0]!;
      const resources = container.resources as { requests: Yaml; limits: Yaml };
      expect(resources.requests).to.include.keys('cpu', 'memory');
      expect(resources.limits).to.include.keys('cpu', 'memory');
    }
  });

  const commandLine = (job: Yaml): string => {
    const container = ((job.spec as Yaml).containers as Yaml[])[0]!;
    return [
      ...(container.command as string[]),
      ...((container.args as string[] | undefined) ?? []),
    ].join(' ');
  };
  const mutation = periodics.filter((job) => commandLine(job).includes('npm run mutation'));

  it('runs ci/periodic.sh on existing presets', () => {
    const conformance = periodics.filter((job) => commandLine(job).includes('ci/periodic.sh'));
    expect(conformance.length).to.be.greaterThan(0);
    for (const job of conformance) {
      const line = commandLine(job);
      const scripts = scriptsIn(line);
      expect(scripts, String(job.name)).to.include('ci/periodic.sh');
      for (const script of scripts) expectRunnable(script);
      const preset = /ci\/periodic\.sh\s+([\w.-]+)/.exec(line)?.[1];
      expectPreset(preset ?? '');
    }
  });

  it('runs every mutant in one job and keeps the report with the artifacts, whatever the exit', () => {
    expect(mutation.map((job) => job.name)).to.deep.equal(['ci-hybrid-lab-mutation-nightly']);
    const line = commandLine(mutation[0]!);
    expect(line).to.match(/npm run mutation -- --full; rc=\$\?;/);
    expect(line).to.match(/cp -r test-results\/mutation "\$ARTIFACTS\/"; exit \$rc/);
  });
});

/** The commands of a GitHub job's run steps, or a Prow job's command line, spaces normalised. */
const words = (text: string): string =>
  text
    .replace(/--silent /g, '')
    .replace(/\s+/g, ' ')
    .trim();

describe('docs/ci.md: what left per-change CI runs in the nightly', () => {
  const page = readFileSync(`${ROOT}docs/ci.md`, 'utf8');
  const table = tables(page).find((t) => t.header[0] === 'check that left CI');
  const github = load('ci/github/nightly.yml').jobs as Record<string, Yaml>;
  const prow = load('ci/prow/periodics.yaml').periodics as Yaml[];
  const ciRun = words(readFileSync(`${ROOT}.ci/run`, 'utf8'));

  it('names each check with its GitHub job, its Prow job and the command both run', () => {
    expect(table, 'a table headed "check that left CI"').to.not.equal(undefined);
    expect(table!.header).to.deep.equal([
      'check that left CI',
      'what CI runs instead',
      'GitHub job',
      'Prow job',
      'command',
    ]);
    expect(table!.rows.length).to.be.greaterThan(2);
  });

  for (const [check, , job, periodic, command] of table?.rows ?? []) {
    const code = (cell: string | undefined) => /`([^`]+)`/.exec(cell ?? '')?.[1] ?? '';
    it(`${check}: runs in the nightly's ${code(job)} and ${code(periodic)}, not in .ci/run`, () => {
      const line = words(code(command));
      expect(line, 'a command').to.not.equal('');
      const steps = ((github[code(job)]?.steps ?? []) as Yaml[]).map((s) => words(str(s.run)));
      expect(steps.join('\n'), `GitHub job ${code(job)}`).to.contain(line);
      const container = (
        ((prow.find((p) => p.name === code(periodic))?.spec as Yaml | undefined)?.containers ??
          []) as Yaml[]
      )[0];
      const args = words(((container?.args as string[] | undefined) ?? []).join(' '));
      expect(args, `Prow job ${code(periodic)}`).to.contain(line);
      expect(ciRun, '.ci/run runs it itself').to.not.contain(line);
    });
  }
});
