/** Durations as a user types them (`90s`, `30m`, `6h`, `2d`) and as messages show them. */
import { LabError } from '../errors.ts';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `text` (a whole number and one of s, m, h, d) in milliseconds; a LabError naming `what` else. */
export function parseDuration(text: string, what: string): number {
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  const ms = match === null ? NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new LabError(
      `${what}: expected a whole number above 0 and a unit (s, m, h or d), e.g. 6h; got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

/** An age in the largest unit it fills, whole and rounded down: `45 s`, `20 min`, `6 h`, `2 d`. */
export function formatAge(ms: number): string {
  if (ms >= UNIT_MS.d) return `${Math.floor(ms / UNIT_MS.d)} d`;
  if (ms >= UNIT_MS.h) return `${Math.floor(ms / UNIT_MS.h)} h`;
  if (ms >= UNIT_MS.m) return `${Math.floor(ms / UNIT_MS.m)} min`;
  return `${Math.max(0, Math.floor(ms / UNIT_MS.s))} s`;
}
