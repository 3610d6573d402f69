/**
 * stryker-equivalent.json: the surviving mutants that no test can kill because they behave like
 * the original, each with why. A survivor that is not listed, and an entry no survivor matches
 * any more, both fail the mutation run, so the list follows the code.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { LabError } from '../../lab/errors.ts';
import { formatIssues } from '../../lab/spec/format-issues.ts';
import type { Undetected } from './mutation-report.ts';

const EntrySchema = z.strictObject({
  /** The mutated file, relative to the repository. */
  file: z.string().regex(/^[\w./-]+$/),
  /** Stryker's mutator name, e.g. `ConditionalExpression`. */
  mutator: z.string().min(1),
  /** The source text the mutant replaces, exactly. */
  original: z.string().min(1),
  /** What Stryker puts there instead, exactly as its report says. */
  replacement: z.string(),
  /**
   * The line the mutant starts on; needed when the file holds the original text more than once,
   * so that the entry excuses that mutant only and not a new survivor of the same shape elsewhere.
   */
  line: z.number().int().positive().optional(),
  /** Why no test can tell them apart: one line. */
  reason: z
    .string()
    .min(10)
    .refine((s) => !s.includes('\n'), { message: 'one line' }),
});
export type Equivalent = z.infer<typeof EntrySchema>;

const FileSchema = z.strictObject({ equivalent: z.array(EntrySchema) });

/** The entries of `text` (stryker-equivalent.json's content), checked; `source` names it in errors. */
export function parseEquivalents(text: string, source: string): Equivalent[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LabError(`${source}: not JSON: ${(error as Error).message}`);
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues).map((i) => `  ${i.path}: ${i.message}`);
    throw new LabError(`${source} is not a list of equivalent mutants:\n${issues.join('\n')}`);
  }
  return parsed.data.equivalent;
}

export function readEquivalents(path: string): Equivalent[] {
  return parseEquivalents(readFileSync(path, 'utf8'), path);
}

/** The lines on which `text` starts in `source`, in order. */
export function linesOf(source: string, text: string): number[] {
  const lines: number[] = [];
  for (let at = source.indexOf(text); at !== -1; at = source.indexOf(text, at + 1))
    lines.push(source.slice(0, at).split('\n').length);
  return lines;
}

const matches = (e: Equivalent, u: Undetected): boolean =>
  (e.line === undefined || e.line === u.line) &&
  e.file === u.file &&
  e.mutator === u.mutator &&
  e.original === u.original &&
  e.replacement === u.replacement;

/**
 * Survivors no entry explains (a mutant no test reached is never equivalent: it is untested),
 * and entries of the `reported` files that explain no survivor (the code moved on).
 */
export function compareEquivalents(
  undetected: readonly Undetected[],
  equivalents: readonly Equivalent[],
  reported: ReadonlySet<string>,
): { unlisted: Undetected[]; stale: Equivalent[] } {
  const survived = undetected.filter((u) => u.status === 'Survived');
  return {
    unlisted: undetected.filter(
      (u) => u.status === 'NoCoverage' || !equivalents.some((e) => matches(e, u)),
    ),
    stale: equivalents.filter((e) => reported.has(e.file) && !survived.some((u) => matches(e, u))),
  };
}
