/** Lets a ci/tools module run as a command (`tsx ci/tools/X.ts ...`) and still be imported by tests. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LabError } from '../../lab/errors.ts';

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/** Runs `main` with the command's arguments; a LabError prints as `tool: message` (+ hint), exit 1. */
export async function runMain(
  tool: string,
  main: (argv: string[]) => Promise<void> | void,
): Promise<void> {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof LabError)) throw error;
    process.stderr.write(`${tool}: ${error.message}\n`);
    if (error.hint !== undefined) process.stderr.write(`hint: ${error.hint}\n`);
    process.exitCode = 1;
  }
}
