/** Which cells mocha will run, read from its --grep/--fgrep/--invert flags, so only those are probed. */

export interface Selection {
  matches(fullTitle: string): boolean;
  /** The --grep (or --fgrep) text as given; undefined without one, or with --invert. */
  readonly pattern?: string;
}

/** Parses mocha's selection flags out of argv (`--grep x`, `--grep=x`, `-g x`, `-f`, `-i`). */
export function selectionFromArgv(argv: readonly string[]): Selection {
  let grep: RegExp | undefined;
  let pattern: string | undefined;
  let invert = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--grep' || flag === '-g') {
      pattern = value();
      grep = new RegExp(pattern);
    } else if (flag === '--fgrep' || flag === '-f') {
      pattern = value();
      grep = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    } else if (flag === '--invert' || flag === '-i') invert = true;
  }
  return {
    matches: (title) => (grep === undefined ? true : grep.test(title) !== invert),
    ...(pattern === undefined || invert ? {} : { pattern }),
  };
}
