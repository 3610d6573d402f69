#!/usr/bin/env -S npx tsx
/** `lab`: bring hybrid labs up and down, inspect and reap them (README.md). */
import { resolve } from 'node:path';
import { LabError, LabSpecError } from '../errors.ts';
import { LabStore } from '../state/lab-store.ts';
import { labProgram } from './program.ts';

const program = labProgram(new LabStore(resolve(process.env.LAB_HOME ?? '.lab')));

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof LabError) {
    process.stderr.write(`error: ${error.message}\n`);
    if (error.hint !== undefined) process.stderr.write(`hint: ${error.hint}\n`);
    process.exitCode = error instanceof LabSpecError ? 2 : 1;
  } else {
    throw error;
  }
}
