/** Golden files of the provisioning tests: compared byte for byte; UPDATE_GOLDEN=1 rewrites them. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

export const TESTDATA = fileURLToPath(new URL('../provision/testdata/', import.meta.url));

export function expectGolden(name: string, actual: string): void {
  const file = `${TESTDATA}${name}`;
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    if (process.env.UPDATE_GOLDEN !== '1')
      throw new Error(
        `golden file ${file} is missing; run with UPDATE_GOLDEN=1 once and review it`,
      );
    writeFileSync(file, actual);
  }
  expect(actual, `differs from golden ${file}`).to.equal(readFileSync(file, 'utf8'));
}
