/** Validates JUnit XML against the repo's Jenkins-style schema with xmllint (libxml2-utils). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CommandRunner } from '../../lab/exec/command-runner.ts';
import { ExecaRunner } from '../../lab/exec/execa-runner.ts';
import { LabError } from '../../lab/errors.ts';
import { silentLogger } from '../../lab/log/logger.ts';

/** The schema kept next to this file. */
export const JUNIT_XSD = fileURLToPath(new URL('../report/junit.xsd', import.meta.url));

export type JunitValidation =
  | { valid: true; file: string }
  /** `errors` are xmllint's messages: parse errors or schema violations, one per line. */
  | { valid: false; file: string; errors: string[] };

/** xmllint could not judge the file: missing input, schema that does not compile, no xmllint. */
export class JunitValidationError extends LabError {
  override readonly name = 'JunitValidationError';
}

export interface ValidateOptions {
  schema?: string;
  runner?: CommandRunner;
}

// xmllint: 0 valid, 1 not well-formed, 3/4 schema violations; anything else is about the tooling.
const INVALID_EXIT_CODES = new Set([1, 3, 4]);

/** Run `xmllint --noout --schema junit.xsd FILE` and say whether the file is valid. */
export async function validateJunit(
  file: string,
  options: ValidateOptions = {},
): Promise<JunitValidation> {
  const schema = options.schema ?? JUNIT_XSD;
  for (const [what, path] of [
    ['JUnit file', file],
    ['schema', schema],
  ] as const) {
    if (!existsSync(path))
      throw new JunitValidationError(`cannot validate: ${what} ${path} does not exist`);
  }
  const runner = options.runner ?? new ExecaRunner(silentLogger());
  const result = await runner.run('xmllint', ['--noout', '--schema', schema, file], {
    check: false,
    timeoutMs: 60_000,
  });
  if (result.exitCode === 0) return { valid: true, file };
  const errors = result.stderr
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '' && !line.endsWith(' fails to validate'));
  if (INVALID_EXIT_CODES.has(result.exitCode)) return { valid: false, file, errors };
  throw new JunitValidationError(
    `xmllint could not validate ${file} (exit ${result.exitCode}): ${errors.join('; ') || 'no output'}`,
    { hint: 'install xmllint (Debian: apt-get install libxml2-utils) and check the schema path' },
  );
}
