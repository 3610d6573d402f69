/** Quoting an argument for the remote shell ssh hands the command line to. */

/** The remote login shell: POSIX sh (Linux) or PowerShell (Windows OpenSSH's DefaultShell). */
export type ShellFlavour = 'posix' | 'powershell';

const PLAIN: Record<ShellFlavour, RegExp> = {
  posix: /^[A-Za-z0-9_./:=@%+,-]+$/,
  // No `,` (an unquoted a,b is an array, passed to a program as two arguments) and no `@` (splatting).
  powershell: /^[A-Za-z0-9_./:=%+\\-]+$/,
};

/** A cmdlet's name (Verb-Noun): its success reaches the caller as $? (0 or 1), which is all it has. */
const CMDLET = /^[A-Za-z]+-[A-Za-z]+$/;

/**
 * What a remote PowerShell line that runs a program starts and ends with. sshd runs the line as
 * `powershell.exe -c LINE`, which turns a last program's exit code other than 0 or 1 into 1 unless the
 * line ends with `exit $LASTEXITCODE`; presetting 1 keeps "program not found" a failure (the facts
 * catalogue's `openssh-powershell-exit-code`).
 */
export const POWERSHELL_PROGRAM_LINE = {
  prefix: '$LASTEXITCODE = 1; & ',
  suffix: '; exit $LASTEXITCODE',
} as const;

/**
 * One argument as the remote shell must see it: unchanged when plain, else single-quoted. A double
 * quote is refused for PowerShell: Windows PowerShell 5.1 hands it to a program unescaped, so the
 * program would see other arguments (the facts catalogue's `openssh-powershell-double-quotes`).
 */
export function quoteArg(arg: string, flavour: ShellFlavour = 'posix'): string {
  if (flavour === 'powershell' && arg.includes('"'))
    throw new Error(
      `cannot send ${arg} to a Windows node: a double quote does not reach a program intact through OpenSSH's Windows PowerShell shell; use single quotes`,
    );
  if (PLAIN[flavour].test(arg)) return arg;
  return flavour === 'posix' ? `'${arg.replace(/'/g, `'\\''`)}'` : `'${arg.replace(/'/g, "''")}'`;
}

/**
 * argv as one command line for the remote shell. In PowerShell a program runs through the call
 * operator (a quoted path is then a command, not a string) and its exit code is kept.
 */
export function commandLine(argv: readonly string[], flavour: ShellFlavour = 'posix'): string {
  const line = argv.map((arg) => quoteArg(arg, flavour)).join(' ');
  if (flavour === 'posix' || argv.length === 0 || CMDLET.test(argv[0]!)) return line;
  return `${POWERSHELL_PROGRAM_LINE.prefix}${line}${POWERSHELL_PROGRAM_LINE.suffix}`;
}
