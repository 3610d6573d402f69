/**
 * The command line a Windows process gets for an argv, as containerd and hcsshim build it (Go's
 * syscall.EscapeArg), and what hcsshim runs for a HostProcess container's process on a host with
 * bind filter support (Windows Server 2022): `cmd /c LINE` (the facts catalogue's
 * `hostprocess-exec-command-line`).
 */

/** One argument quoted as Go's syscall.EscapeArg quotes it (CommandLineToArgvW reads it back). */
export function escapeArg(arg: string): string {
  if (arg === '') return '""';
  if (!/[\s"]/.test(arg)) return arg;
  let out = '"';
  let slashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      slashes++;
      out += ch;
      continue;
    }
    // Backslashes before a quote are doubled, and the quote itself escaped.
    if (ch === '"') out += `${'\\'.repeat(slashes)}\\`;
    slashes = 0;
    out += ch;
  }
  return `${out}${'\\'.repeat(slashes)}"`;
}

/** argv as one Windows command line. */
export function windowsCommandLine(argv: readonly string[]): string {
  return argv.map(escapeArg).join(' ');
}

/** What a HostProcess exec runs on Windows Server 2022: the line behind `cmd /c`. */
export function hostProcessExecLine(argv: readonly string[]): string {
  return `cmd /c ${windowsCommandLine(argv)}`;
}

/** cmd.exe's command separators and redirections that stand outside double quotes in `line`. */
export function unquotedCmdMetacharacters(line: string): string[] {
  const found: string[] = [];
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && '&|<>^'.includes(ch)) found.push(ch);
  }
  return found;
}
