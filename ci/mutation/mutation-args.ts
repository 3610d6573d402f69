/**
 * What `npm run mutation` takes (docs/mutation-testing.md): a scope and whether to re-test every
 * mutant. The scopes live here and only here; stryker.config.json's `mutate` is the `core` scope.
 */
import { LabError } from '../../lab/errors.ts';
import { globToRegExp } from '../../lab/text/glob.ts';

/** A file mutated only in the named top-level functions: the rest of it is left to `core`. */
export interface FunctionsOf {
  file: string;
  functions: readonly string[];
}

/** A part of the judging core: what it mutates, and the unit tests that must kill its mutants. */
export interface Scope {
  mutate: readonly (string | FunctionsOf)[];
  tests: readonly string[];
}

/**
 * Each scope; `null` is the config's whole `mutate` list and `mochaEsm.spec`. `ci` is the heart of
 * the verdict (outcome, verdict, the sweep's count of who answered) and the fault impacts the
 * self-test judges by, with their own tests; a folder joins it once the core run explains it whole.
 */
export const SCOPES = {
  core: null,
  ci: {
    mutate: [
      'specs/engine/judge.ts',
      {
        // The sweep's count, its failure and its pairing of answers; the socket plumbing under
        // them (getOver, askOneSocket) times its mutants out by the dozen: nightly only.
        file: 'lab/cluster/workload/endpoint-sweep.mjs',
        functions: [
          'sweepEndpoints',
          'failedRequest',
          'clientAddress',
          'askOneConnection',
          'succeeded',
          'httpError',
        ],
      },
      // Which cells a fault breaks: what the self-test's verdict on the suite rests on.
      'lab/faults/impacts.ts',
      'lab/faults/cell-selector.ts',
      'lab/text/glob.ts',
    ],
    tests: [
      'specs/engine/judge-cases.test.ts',
      'specs/engine/judge-checks.test.ts',
      'specs/engine/judge.test.ts',
      'specs/engine/feature-checks.test.ts',
      'lab/cluster/workload/endpoint-sweep.test.ts',
      'lab/faults/fault-catalogue.test.ts',
      'lab/faults/feature-faults.test.ts',
      'lab/faults/cell-selector.test.ts',
      'lab/text/glob.test.ts',
    ],
  },
} as const satisfies Record<string, Scope | null>;

export type ScopeName = keyof typeof SCOPES;

export interface MutationArgs {
  scope: ScopeName;
  /** Re-test every mutant of the scope (Stryker's `--force`) instead of only what changed. */
  full: boolean;
  /**
   * Only the part of the scope the change touched (changed-scope.ts), every mutant of it, with no
   * state kept between runs: what CI runs.
   */
  changed: boolean;
}

export const MUTATION_USAGE = `npm run mutation [-- [--scope ${Object.keys(SCOPES).join('|')}] [--full | --changed]]`;

const isScope = (name: string): name is ScopeName => Object.hasOwn(SCOPES, name);

/** Parses the arguments after `npm run mutation --`; throws a LabError naming a bad one. */
export function parseMutationArgs(argv: readonly string[]): MutationArgs {
  const args: MutationArgs = { scope: 'core', full: false, changed: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--full') args.full = true;
    else if (arg === '--changed') args.changed = true;
    else if (arg === '--scope' || arg.startsWith('--scope=')) {
      const name = arg === '--scope' ? argv[++i] : arg.slice('--scope='.length);
      if (name === undefined || !isScope(name))
        throw new LabError(
          `--scope ${name ?? '(missing)'}: expected one of ${Object.keys(SCOPES).join(', ')}`,
          { hint: `usage: ${MUTATION_USAGE}` },
        );
      args.scope = name;
    } else throw new LabError(`unknown argument ${arg}`, { hint: `usage: ${MUTATION_USAGE}` });
  }
  if (args.full && args.changed)
    throw new LabError('--full and --changed exclude each other', {
      hint: `usage: ${MUTATION_USAGE}`,
    });
  return args;
}

/** Whether a Stryker `mutate` list takes `file`: some glob matches it and no later `!glob` drops it. */
export function mutatedBy(globs: readonly string[], file: string): boolean {
  let taken = false;
  for (const glob of globs) {
    if (glob.startsWith('!')) taken &&= !globToRegExp(glob.slice(1)).test(file);
    else taken ||= globToRegExp(glob).test(file);
  }
  return taken;
}

/** The files a scope mutates (each once), without their ranges. */
export function scopeFiles(scope: Scope): string[] {
  return scope.mutate.map((m) => (typeof m === 'string' ? m : m.file));
}

/**
 * Stryker's `file:first-last` line ranges of `functions` in `text` (each from its `function NAME(`
 * line to the next line that is a lone `}`); throws naming a function that is not there.
 */
export function functionRanges(file: string, text: string, functions: readonly string[]): string[] {
  const lines = text.split('\n');
  return functions.map((name) => {
    const head = new RegExp(`^(export )?(async )?function\\*? ?${name}\\b`);
    const first = lines.findIndex((l) => head.test(l));
    const last = lines.findIndex((l, i) => i > first && l === '}');
    if (first === -1 || last === -1)
      throw new LabError(`${file} has no top-level function ${name}`, {
        hint: 'update SCOPES in ci/mutation/mutation-args.ts',
      });
    return `${file}:${first + 1}-${last + 1}`;
  });
}

/**
 * Stryker's command-line arguments for a scope: its own `--mutate` and `--testFiles`, none for
 * `core`. `read` gives a file's text (function ranges are found in it).
 */
export function scopeArgs(scope: ScopeName, read: (file: string) => string): string[] {
  const s: Scope | null = SCOPES[scope];
  if (s === null) return [];
  const mutate = s.mutate.flatMap((m) =>
    typeof m === 'string' ? [m] : functionRanges(m.file, read(m.file), m.functions),
  );
  return ['--mutate', mutate.join(','), '--testFiles', s.tests.join(',')];
}
