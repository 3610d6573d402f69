/**
 * How a command line's exit code reaches ssh on a Windows node whose OpenSSH DefaultShell is
 * Windows PowerShell 5.1 (sshd runs `powershell.exe -c LINE`): the rules of the facts catalogue's
 * `openssh-powershell-exit-code`, as a model the unit tests run the harness's real lines through.
 *
 * -Command exits with 0 or 1 from the last statement's success ($?), so a program's own code
 * survives only an explicit `exit $LASTEXITCODE`; $LASTEXITCODE keeps its earlier value when no
 * program ran (one that is not found fails the statement and sets nothing).
 */

/** What the program a line runs does: exits with a code, or cannot be started. */
export type ProgramOutcome = { exitCode: number } | 'not-found';

/** The line's top-level statements (split at `;` outside single quotes), trimmed. */
function statements(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === "'") quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current.trim());
  return out.filter((s) => s !== '');
}

/** The exit code ssh reports for `line` when its program does `program`. */
export function exitCodeOverOpenSsh(line: string, program: ProgramOutcome): number {
  let lastExitCode: number | undefined;
  let succeeded = true;
  for (const statement of statements(line)) {
    const assign = /^\$LASTEXITCODE\s*=\s*(\d+)$/i.exec(statement);
    if (assign !== null) {
      lastExitCode = Number(assign[1]);
      succeeded = true;
      continue;
    }
    const exit = /^exit(?:\s+(\$LASTEXITCODE|\d+))?$/i.exec(statement);
    if (exit !== null) {
      const value =
        exit[1] === undefined ? 0 : /^\d+$/.test(exit[1]) ? Number(exit[1]) : lastExitCode;
      // `exit $null` (nothing ran) exits 0.
      return value ?? 0;
    }
    const command = statement.replace(/^&\s*/, '').split(/\s+/)[0] ?? '';
    if (/^[A-Za-z]+-[A-Za-z]+$/.test(command)) {
      succeeded = true; // a cmdlet the model takes to succeed
      continue;
    }
    if (program === 'not-found') {
      succeeded = false;
      continue;
    }
    lastExitCode = program.exitCode;
    succeeded = program.exitCode === 0;
  }
  return succeeded ? 0 : 1;
}
