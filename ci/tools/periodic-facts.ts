/**
 * What ci/periodic.sh needs to know, printed for a shell to read without eval:
 *   plan FILE      `key=value` lines about the lab (name, provider, cluster, prefix, ...) and
 *                  one `hypervisor=NAME REMOTE URI` line per hypervisor
 *   results FILE   how the suite's run ended: passed | failed | infra | interrupted
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { LabError } from '../../lab/errors.ts';
import { readResultsFile } from '../../lab/history/results-input.ts';
import { formatIssues } from '../../lab/spec/format-issues.ts';
import { isMain, runMain } from './run-main.ts';

const PlanSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  id: z.string().min(1),
  prefix: z.string().regex(/^[a-z0-9-]+$/),
  provider: z.enum(['netns', 'libvirt', 'existing']),
  cluster: z.enum(['emulated', 'kubeadm', 'existing']),
  emulated: z.boolean(),
  hypervisors: z.array(
    z.object({
      name: z.string().regex(/^[A-Za-z0-9._-]+$/),
      uri: z.string().regex(/^\S+$/),
      remote: z.boolean(),
    }),
  ),
});

/** The plan's facts as `key=value` lines; every value is one shell-safe word. */
export function planFacts(plan: unknown, source: string): string[] {
  const parsed = PlanSchema.safeParse(plan, { reportInput: true });
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues).map((i) => `  ${i.path}: ${i.message}`);
    throw new LabError(`plan ${source} lacks what periodic.sh needs:\n${issues.join('\n')}`);
  }
  const p = parsed.data;
  return [
    `name=${p.name}`,
    `id=${p.id}`,
    `prefix=${p.prefix}`,
    `provider=${p.provider}`,
    `cluster=${p.cluster}`,
    `emulated=${String(p.emulated)}`,
    ...p.hypervisors.map((h) => `hypervisor=${h.name} ${h.remote ? 'remote' : 'local'} ${h.uri}`),
  ];
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new LabError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function main(argv: string[]): void {
  const [what, file] = argv;
  if ((what !== 'plan' && what !== 'results') || file === undefined) {
    throw new LabError('usage: periodic-facts.ts plan PLAN.json | results RESULTS.json');
  }
  const lines = what === 'plan' ? planFacts(readJson(file), file) : [readResultsFile(file).status];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (isMain(import.meta.url)) await runMain('periodic-facts', main);
