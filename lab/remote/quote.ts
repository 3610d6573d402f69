/** Quoting an argument for the remote shell ssh hands the command line to. */

/** The remote login shell: POSIX sh (Linux) or PowerShell (Windows OpenSSH's DefaultShell). */
export type ShellFlavour = 'posix' | 'powershell';

const PLAIN: Record<ShellFlavour, RegExp> = {
  posix: /^[A-Za-z0-9_./:=@%+,-]+$/,
  powershell: /^[A-Za-z0-9_./:=@%+,\\-]+$/,
};

/** One argument as the remote shell must see it: unchanged when plain, else single-quoted. */
export function quoteArg(arg: string, flavour: ShellFlavour = 'posix'): string {
  if (PLAIN[flavour].test(arg)) return arg;
  return flavour === 'posix' ? `'${arg.replace(/'/g, `'\\''`)}'` : `'${arg.replace(/'/g, "''")}'`;
}

/** argv as one command line for the remote shell. */
export function commandLine(argv: readonly string[], flavour: ShellFlavour = 'posix'): string {
  return argv.map((arg) => quoteArg(arg, flavour)).join(' ');
}
