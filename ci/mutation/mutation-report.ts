/**
 * Reads Stryker's JSON report (mutation-testing-report-schema): the score of each folder, and the
 * mutants no test detected, each with the source text it replaced.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { LabError } from '../../lab/errors.ts';
import { formatIssues } from '../../lab/spec/format-issues.ts';

const Position = z.object({ line: z.number().int().min(1), column: z.number().int().min(1) });

const ReportSchema = z.object({
  files: z.record(
    z.string(),
    z.object({
      source: z.string(),
      mutants: z.array(
        z.object({
          id: z.string(),
          mutatorName: z.string(),
          replacement: z.string().optional(),
          status: z.string(),
          location: z.object({ start: Position, end: Position }),
        }),
      ),
    }),
  ),
});
export type MutationReport = z.infer<typeof ReportSchema>;

/** Statuses that count against the score: a mutant no test noticed. */
export const UNDETECTED = ['Survived', 'NoCoverage'] as const;
const DETECTED = ['Killed', 'Timeout'];

/** A mutant no test detected, as a person reads it. */
export interface Undetected {
  file: string;
  line: number;
  mutator: string;
  /** The source text the mutant replaced (lines joined with `\n`). */
  original: string;
  replacement: string;
  status: (typeof UNDETECTED)[number];
}

export interface FolderScore {
  folder: string;
  detected: number;
  undetected: number;
  /** Mutants the type checker rejected, or Stryker ignored (static, disabled): not in the score. */
  excluded: number;
  /** detected / (detected + undetected), in percent; NaN when the folder has no valid mutant. */
  score: number;
}

/** The report at `path`, checked; a field it lacks is named. */
export function readReport(path: string): MutationReport {
  const parsed = ReportSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues).map((i) => `  ${i.path}: ${i.message}`);
    throw new LabError(`${path} is not a Stryker JSON report:\n${issues.join('\n')}`);
  }
  return parsed.data;
}

/** The text between two 1-based positions of `source` (end column exclusive). */
export function textAt(
  source: string,
  start: z.infer<typeof Position>,
  end: z.infer<typeof Position>,
): string {
  const lines = source.split('\n').slice(start.line - 1, end.line);
  if (lines.length === 0) return '';
  lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, end.column - 1);
  lines[0] = lines[0]!.slice(start.column - 1);
  return lines.join('\n');
}

/** Every mutant no test detected, by file and line. */
export function undetectedMutants(report: MutationReport): Undetected[] {
  return Object.entries(report.files)
    .flatMap(([file, { source, mutants }]) =>
      mutants.flatMap((m): Undetected[] => {
        const status = UNDETECTED.find((s) => s === m.status);
        if (status === undefined) return [];
        const { start, end } = m.location;
        const original = textAt(source, start, end);
        const replacement = m.replacement ?? '';
        return [{ file, line: start.line, mutator: m.mutatorName, original, replacement, status }];
      }),
    )
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The score of each folder holding mutated files, and of all of them (`all`), as Stryker counts it. */
export function scoresByFolder(report: MutationReport): FolderScore[] {
  const totals = new Map<string, Omit<FolderScore, 'score'>>();
  const add = (folder: string, status: string) => {
    const t = totals.get(folder) ?? { folder, detected: 0, undetected: 0, excluded: 0 };
    if (DETECTED.includes(status)) t.detected++;
    else if ((UNDETECTED as readonly string[]).includes(status)) t.undetected++;
    else t.excluded++;
    totals.set(folder, t);
  };
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      add(dirname(file), m.status);
      add('all', m.status);
    }
  }
  return [...totals.values()]
    .map((t) => ({ ...t, score: (100 * t.detected) / (t.detected + t.undetected) }))
    .sort((a, b) =>
      a.folder === 'all' ? 1 : b.folder === 'all' ? -1 : a.folder.localeCompare(b.folder),
    );
}
