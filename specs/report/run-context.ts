/** Hands the run's RunInfo from the engine (root `before` hook) to the reporter in the same process. */
import type { RunInfo } from '../engine/results.ts';

// Kept on globalThis: mocha require()s the reporter while specs import() the engine, and a loader
// may give each path its own instance of this module.
const SLOT = Symbol.for('hybrid-lab.report.run-info');
const OPEN_FAILURE = Symbol.for('hybrid-lab.report.open-failure');

interface RunInfoSlot {
  [SLOT]?: RunInfo;
  [OPEN_FAILURE]?: string;
}

/** Publish the run's info; the last call wins. */
export function setRunInfo(info: RunInfo): void {
  (globalThis as RunInfoSlot)[SLOT] = { ...info, osBuilds: { ...info.osBuilds } };
}

/** The run's info, or undefined when no engine published it (plain mocha run, early crash). */
export function getRunInfo(): RunInfo | undefined {
  return (globalThis as RunInfoSlot)[SLOT];
}

/** The lab could not be opened: the reporter emits the infrastructure testcase even under --grep. */
export function setOpenFailure(message: string): void {
  (globalThis as RunInfoSlot)[OPEN_FAILURE] = message;
}

/** Why the lab could not be opened, when it could not. */
export function getOpenFailure(): string | undefined {
  return (globalThis as RunInfoSlot)[OPEN_FAILURE];
}

/** Forget the published info (tests). */
export function clearRunInfo(): void {
  (globalThis as RunInfoSlot)[SLOT] = undefined;
  (globalThis as RunInfoSlot)[OPEN_FAILURE] = undefined;
}
